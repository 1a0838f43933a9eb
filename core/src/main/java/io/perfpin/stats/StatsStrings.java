package io.perfpin.stats;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Fixed-size, zero-padded UTF-8 fields of the stats file. */
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

    /** Whether {@code value} fits a field of {@code size} bytes whole. */
    static boolean fits(String value, int size) {
        return value.length() < size / 3 || value.getBytes(StandardCharsets.UTF_8).length < size;
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
}
