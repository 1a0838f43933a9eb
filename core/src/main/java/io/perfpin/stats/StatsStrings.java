package io.perfpin.stats;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Fixed-size, zero-padded UTF-8 fields of the stats file. */
final class StatsStrings {
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
        for (int i = bytes.length; i < size; i++) {
            buffer.put(offset + i, (byte) 0);
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
