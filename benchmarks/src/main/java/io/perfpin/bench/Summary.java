package io.perfpin.bench;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;

/**
 * The median of repeated measurements with their spread (minimum and maximum): every figure in the report
 * is given this way, because one number from a shared two-vCPU machine says nothing about its noise.
 */
public record Summary(double median, double min, double max, int n) {

    public static Summary of(double... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no measurements to summarise");
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        double median = sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
        return new Summary(median, sorted[0], sorted[sorted.length - 1], sorted.length);
    }

    public static Summary of(Collection<Double> values) {
        return of(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /**
     * {@code numerator / denominator}: the ratio of the medians, spread from the least to the greatest ratio
     * any two runs could give (numerator's min over denominator's max, and the other way round).
     */
    public static Summary ratio(Summary numerator, Summary denominator) {
        return new Summary(numerator.median / denominator.median, numerator.min / denominator.max,
                numerator.max / denominator.min, Math.min(numerator.n, denominator.n));
    }

    /** {@code minuend - subtrahend}: the difference of the medians, spread as {@link #ratio} is. */
    public static Summary difference(Summary minuend, Summary subtrahend) {
        return new Summary(minuend.median - subtrahend.median, minuend.min - subtrahend.max,
                minuend.max - subtrahend.min, Math.min(minuend.n, subtrahend.n));
    }

    /** Each value multiplied by a positive {@code factor}: a change of unit. */
    public Summary scaled(double factor) {
        return new Summary(median * factor, min * factor, max * factor, n);
    }

    /** {@code 210.3 (198.0–230.1)}: the median, then the spread, with {@code decimals} places. */
    public String format(int decimals) {
        return number(median, decimals) + " (" + number(min, decimals) + "–" + number(max, decimals) + ")";
    }

    /** As {@link #format(int)}, with as many decimals as a figure of the median's size needs: 3, 1 or none. */
    public String format() {
        double size = Math.abs(median);
        return format(size >= 1000 ? 0 : size >= 10 ? 1 : 3);
    }

    static String number(double value, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }
}
