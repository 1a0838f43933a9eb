package io.perfpin.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Counts as the tables show them: {@code 1,234,567}, and nanoseconds as {@code 12.346 ms}, the same text as
 * {@code String.format(Locale.ROOT, "%,d")} and {@code "%.3f ms"} give. A table of a hundred threads formats a few
 * thousand cells at the end of a short {@code perfpin stat}, when java.util.Formatter (interpreted, parsing its
 * pattern per call) took tens of milliseconds of the command's wall time; these are a few divisions each.
 */
final class CountText {
    private CountText() {}

    /** {@code value} with a comma between each group of three digits. */
    static String grouped(long value) {
        StringBuilder text = new StringBuilder(26);
        appendGrouped(text, value);
        return text.toString();
    }

    /** Nanoseconds as milliseconds with three decimals, rounded half up, and " ms". */
    static String millis(long nanos) {
        return thousandths(nanos, 1_000L) + " ms";
    }

    /** Nanoseconds as seconds with three decimals, rounded half up, and " s". */
    static String seconds(long nanos) {
        return thousandths(nanos, 1_000_000L) + " s";
    }

    /** {@code value / (1000 * step)} with three decimals, rounded half up, as {@code "%.3f"} writes it. */
    private static String thousandths(long value, long step) {
        long rounded = Math.abs(value / step) + (Math.abs(value % step) >= step / 2 ? 1 : 0);
        StringBuilder text = new StringBuilder(24);
        if (value < 0) {
            text.append('-');
        }
        text.append(rounded / 1000).append('.');
        long fraction = rounded % 1000;
        if (fraction < 100) {
            text.append(fraction < 10 ? "00" : "0");
        }
        return text.append(fraction).toString();
    }

    /**
     * {@code value} with three decimals, rounded half up from its shortest decimal form, as
     * {@code String.format(Locale.ROOT, "%.3f")} gives it, also for NaN, the infinities and a negative zero.
     */
    static String threeDecimals(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.toString(value);
        }
        String text = new BigDecimal(Double.toString(value))
                .setScale(3, RoundingMode.HALF_UP)
                .toPlainString();
        return (value < 0 || Double.doubleToRawLongBits(value) == Long.MIN_VALUE) && text.charAt(0) != '-'
                ? "-" + text
                : text;
    }

    private static void appendGrouped(StringBuilder text, long value) {
        String digits = Long.toString(value);
        int start = value < 0 ? 1 : 0;
        text.append(digits, 0, start);
        int first = (digits.length() - start) % 3;
        if (first == 0) {
            first = 3;
        }
        text.append(digits, start, start + first);
        for (int i = start + first; i < digits.length(); i += 3) {
            text.append(',').append(digits, i, i + 3);
        }
    }
}
