package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CountTextTest {
    /** Every power of ten, its neighbours and halves, both signs, and the ends of a long. */
    private static List<Long> values() {
        List<Long> values = new ArrayList<>(List.of(0L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1));
        for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10; p *= 10) {
            for (long v : new long[] {p - 1, p, p + 1, p / 2, p / 2 - 1, p + p / 2, 7 * p + 499, 7 * p + 500}) {
                values.add(v);
                values.add(-v);
            }
        }
        return values;
    }

    @Test
    void groupedIsWhatFormatsGroupingGives() {
        for (long v : values()) {
            assertEquals(String.format(Locale.ROOT, "%,d", v), CountText.grouped(v), Long.toString(v));
        }
    }

    @Test
    void millisIsWhatFormatsThreeDecimalsGive() {
        for (long v : values()) {
            if (Math.abs((double) v) < 1L << 53) { // beyond, the double the format gets is no longer v
                assertEquals(String.format(Locale.ROOT, "%.3f ms", v / 1e6), CountText.millis(v), Long.toString(v));
                assertEquals(String.format(Locale.ROOT, "%.3f s", v / 1e9), CountText.seconds(v), Long.toString(v));
            }
        }
    }

    @Test
    void threeDecimalsIsWhatFormatsThreeDecimalsGive() {
        List<Double> values = new ArrayList<>(List.of(
                0.0,
                -0.0,
                0.0005,
                0.0015,
                0.0025,
                -0.0005,
                -0.0004,
                1.0005,
                2.675,
                1e-9,
                123456789.0125,
                Double.NaN,
                Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY,
                Double.MIN_VALUE,
                1e300));
        SplittableRandom random = new SplittableRandom(25);
        for (int i = 0; i < 20_000; i++) {
            values.add(random.nextDouble() * Math.pow(10, random.nextInt(-6, 12)) * (random.nextBoolean() ? 1 : -1));
            values.add(random.nextInt(-100_000, 100_000) / 10_000.0 + 0.0005); // ties at the fourth decimal
        }
        for (double v : values) {
            assertEquals(String.format(Locale.ROOT, "%.3f", v), CountText.threeDecimals(v), Double.toString(v));
        }
    }
}
