package io.perfpin.stats;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The options text an agent was started with, as its stats file keeps it: the first
 * {@link StatsLayout#OPTIONS_TEXT_SIZE} bytes to show, and the whole text's length and CRC-32C to compare a
 * viewer's own options with, however long both are.
 *
 * @param shown  the text, cut when longer than the file keeps
 * @param length the whole text's length in UTF-8 bytes
 * @param crc    the whole text's CRC-32C
 */
public record OptionsText(String shown, int length, int crc) {
    /** Whether {@code options} is the text the agent was started with. */
    public boolean sameAs(String options) {
        byte[] bytes = options.getBytes(StandardCharsets.UTF_8);
        return bytes.length == length && crc(bytes) == crc;
    }

    /** Whether {@link #shown} is the whole text, not cut. */
    public boolean whole() {
        return shown.getBytes(StandardCharsets.UTF_8).length == length;
    }

    static int crc(byte[] text) {
        CRC32C crc = new CRC32C();
        crc.update(text);
        return (int) crc.getValue();
    }
}
