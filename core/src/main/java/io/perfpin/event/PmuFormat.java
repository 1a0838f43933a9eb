package io.perfpin.event;

import java.util.List;

/**
 * Where one term of a sysfs PMU goes in the attribute: a {@code format/<term>} file such as {@code config:0-7},
 * {@code config1:0-63}, {@code config:18} or a split field {@code config:0-7,32-35}. A value fills the ranges in
 * order: its low bits the first range, the bits above them the next.
 */
final class PmuFormat {
    /** The attribute words a format may name, at their index in the encoding's config array. */
    static final List<String> WORDS = List.of("config", "config1", "config2");

    private final String term;
    private final int word;
    private final int[] lows;
    private final int[] widths;

    private PmuFormat(String term, int word, int[] lows, int[] widths) {
        this.term = term;
        this.word = word;
        this.lows = lows;
        this.widths = widths;
    }

    /** Reads a format file's text; {@code where} names the PMU for messages. */
    static PmuFormat parse(String where, String term, String text) {
        String spec = text.trim();
        int colon = spec.indexOf(':');
        int word = colon < 0 ? -1 : WORDS.indexOf(spec.substring(0, colon));
        if (word < 0) {
            throw new InvalidEventException("term '" + term + "' of " + where + " has format '" + spec
                    + "'; perfpin can set only " + String.join(", ", WORDS));
        }
        String[] ranges = spec.substring(colon + 1).split(",");
        int[] lows = new int[ranges.length];
        int[] widths = new int[ranges.length];
        for (int i = 0; i < ranges.length; i++) {
            String range = ranges[i].trim();
            int dash = range.indexOf('-');
            try {
                int low = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int high = dash < 0 ? low : Integer.parseInt(range.substring(dash + 1));
                if (low < 0 || high < low || high > 63) {
                    throw new NumberFormatException(range);
                }
                lows[i] = low;
                widths[i] = high - low + 1;
            } catch (NumberFormatException e) {
                throw new InvalidEventException("term '" + term + "' of " + where + " has unreadable format '" + spec
                        + "': bit range '" + range + "'");
            }
        }
        return new PmuFormat(term, word, lows, widths);
    }

    /** Index into the config words: 0 for config, 1 for config1, 2 for config2. */
    int word() {
        return word;
    }

    /** Total width of the field in bits. */
    int bits() {
        int bits = 0;
        for (int width : widths) {
            bits += width;
        }
        return bits;
    }

    /**
     * Writes the value into its bits of {@code words[word()]}, replacing what an earlier term put there (so that
     * {@code cpu/mem-loads,ldlat=30/} overrides the event's own ldlat).
     */
    void write(long value, long[] words, String token) {
        long rest = value;
        long word = words[this.word];
        for (int i = 0; i < lows.length; i++) {
            long mask = widths[i] == 64 ? -1L : (1L << widths[i]) - 1;
            word = (word & ~(mask << lows[i])) | ((rest & mask) << lows[i]);
            rest = widths[i] == 64 ? 0 : rest >>> widths[i];
        }
        if (rest != 0) {
            throw new InvalidEventException("value 0x" + Long.toHexString(value) + " of term '" + term + "' in '"
                    + token + "' does not fit its " + bits() + " bits");
        }
        words[this.word] = word;
    }
}
