package io.perfpin.stats;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Fixed-size, zero-padded fields of the stats file: UTF-8 text, and names, which are kept exactly
 * ({@link #putName}).
 */
final class StatsStrings {
    /**
     * Padding is copied from here in bulk: a byte at a time, the 64 KiB options field alone took 13 ms of the
     * sampler's CPU at start-up, the interpreter running each put through the buffer's checks.
     */
    private static final byte[] ZEROS = new byte[4096];

    private StatsStrings() {}

    /** At most {@code size - 1} bytes (a zero always ends the field), never cutting a character in half. */
    static byte[] truncatedUtf8(String value, int size) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < size) {
            return bytes;
        }
        int end = size - 1;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--; // back off continuation bytes to a character boundary
        }
        byte[] cut = new byte[end];
        System.arraycopy(bytes, 0, cut, 0, end);
        return cut;
    }

    /** Writes {@code value} into the field, zero-padded, cut as {@link #truncatedUtf8} says. */
    static void put(ByteBuffer buffer, int offset, int size, String value) {
        byte[] bytes = truncatedUtf8(value, size);
        buffer.put(offset, bytes);
        for (int at = bytes.length; at < size; at += ZEROS.length) {
            buffer.put(offset + at, ZEROS, 0, Math.min(ZEROS.length, size - at));
        }
    }

    static String read(ByteBuffer buffer, int offset, int size) {
        int length = 0;
        while (length < size && buffer.get(offset + length) != 0) {
            length++;
        }
        byte[] bytes = new byte[length];
        buffer.get(offset, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * How many characters of {@code name} a name field of {@code size} bytes keeps: all of them, or as many as fit,
     * never a surrogate pair's first half without its second.
     */
    static int nameKept(String name, int size) {
        int room = size - 2;
        if (name.length() <= room / 3) {
            return name.length(); // the common case, looked at every tick: three bytes per character at most
        }
        int bytes = 0;
        for (int i = 0; i < name.length(); i++) {
            bytes += modifiedUtf8Bytes(name.charAt(i));
            if (bytes > room) {
                return i > 0 && Character.isSurrogatePair(name.charAt(i - 1), name.charAt(i)) ? i - 1 : i;
            }
        }
        return name.length();
    }

    /**
     * Writes {@code name} into a name field as {@link java.io.DataOutput#writeUTF} does (a big-endian u16 count of
     * bytes, then Java's modified UTF-8: each UTF-16 unit on its own, a surrogate as three bytes, NUL as two), so that
     * every string, NUL and half a character included, reads back ({@link #readName}) as it was, whole up to the
     * characters the field keeps ({@link #nameKept}); zero-padded. Written here rather than through a stream: the
     * sampler writes its virtual groups' names at every tick.
     */
    static void putName(ByteBuffer buffer, int offset, int size, String name) {
        int kept = nameKept(name, size);
        int at = offset + 2;
        for (int i = 0; i < kept; i++) {
            char c = name.charAt(i);
            if (c >= 1 && c <= 0x7f) {
                buffer.put(at++, (byte) c);
            } else if (c <= 0x7ff) {
                buffer.put(at++, (byte) (0xc0 | c >> 6));
                buffer.put(at++, (byte) (0x80 | c & 0x3f));
            } else {
                buffer.put(at++, (byte) (0xe0 | c >> 12));
                buffer.put(at++, (byte) (0x80 | c >> 6 & 0x3f));
                buffer.put(at++, (byte) (0x80 | c & 0x3f));
            }
        }
        int length = at - offset - 2;
        buffer.put(offset, (byte) (length >> 8));
        buffer.put(offset + 1, (byte) length);
        for (; at < offset + size; at += ZEROS.length) {
            buffer.put(at, ZEROS, 0, Math.min(ZEROS.length, offset + size - at));
        }
    }

    /**
     * The name in the field at {@code offset} of {@code bytes}, as {@link #putName} wrote it.
     *
     * @throws IOException when the field holds no such name: its count is past the field, or its bytes are not
     *     modified UTF-8
     */
    static String readName(byte[] bytes, int offset, int size) throws IOException {
        int length = (bytes[offset] & 0xff) << 8 | bytes[offset + 1] & 0xff;
        if (length > size - 2) {
            throw new IOException("a name of " + length + " bytes in a field of " + size);
        }
        return new DataInputStream(new ByteArrayInputStream(bytes, offset, length + 2)).readUTF();
    }

    private static int modifiedUtf8Bytes(char c) {
        return c >= 1 && c <= 0x7f ? 1 : c <= 0x7ff ? 2 : 3;
    }
}
