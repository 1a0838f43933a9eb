package io.perfpin.stats;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Fixed-size, zero-padded UTF-8 fields of the stats file. */
final class StatsStrings {
    private static final String ELLIPSIS = "\u2026";

    private StatsStrings() {
    }

    /** At most {@code size - 1} bytes (a zero always ends the field), never cutting a character in half. */
    static byte[] truncatedUtf8(String value, int size) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < size) {
            return bytes;
        }
        int end = characterStart(bytes, size - 1);
        byte[] cut = new byte[end];
        System.arraycopy(bytes, 0, cut, 0, end);
        return cut;
    }

    /**
     * A thread name in at most {@code size - 1} bytes: one that is longer keeps its start and its end around an
     * ellipsis, since the names a pool or a harness gives differ at the end. A JMH worker,
     * {@code org.openjdk.jmh.samples.JMHSample_22_FalseSharing.baseline-jmh-worker-1}, is kept as
     * {@code org.openjdk.jmh…HSample_22_FalseSharing.baseline-jmh-worker-1}.
     */
    static byte[] shortenedName(String name, int size) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < size) {
            return bytes;
        }
        byte[] ellipsis = ELLIPSIS.getBytes(StandardCharsets.UTF_8);
        int room = size - 1 - ellipsis.length;
        int headEnd = characterStart(bytes, room / 4);
        int tailStart = bytes.length - (room - headEnd);
        while (tailStart < bytes.length && (bytes[tailStart] & 0xC0) == 0x80) {
            tailStart++; // forward past continuation bytes to a character's first byte
        }
        byte[] shortened = new byte[headEnd + ellipsis.length + bytes.length - tailStart];
        System.arraycopy(bytes, 0, shortened, 0, headEnd);
        System.arraycopy(ellipsis, 0, shortened, headEnd, ellipsis.length);
        System.arraycopy(bytes, tailStart, shortened, headEnd + ellipsis.length, bytes.length - tailStart);
        return shortened;
    }

    /** {@code end}, or the start of the character it falls inside. */
    private static int characterStart(byte[] bytes, int end) {
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        return end;
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
