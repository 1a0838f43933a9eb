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
        return new Summary(
                numerator.median / denominator.median,
                numerator.min / denominator.max,
                numerator.max / denominator.min,
                Math.min(numerator.n, denominator.n));
    }

    /** {@code minuend - subtrahend}: the difference of the medians, spread as {@link #ratio} is. */
    public static Summary difference(Summary minuend, Summary subtrahend) {
        return new Summary(
                minuend.median - subtrahend.median,
                minuend.min - subtrahend.max,
                minuend.max - subtrahend.min,
                Math.min(minuend.n, subtrahend.n));
    }

    /**
     * {@code perfpin / peer} where each is what a tool adds over no tool (a {@link #difference}): how many times
     * the peer's cost perfpin's is, spread from the least to the greatest ratio any two of their values could give.
     * Where some runs put the peer's addition at nothing or below, a ratio to it can be anything: the spread is
     * then unbounded both ways. Null when the peer's median adds nothing: no ratio to it means anything.
     */
    public static Summary additionRatio(Summary perfpin, Summary peer) {
        if (peer.median <= 0) {
            return null;
        }
        int n = Math.min(perfpin.n, peer.n);
        if (peer.min <= 0) {
            return new Summary(perfpin.median / peer.median, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, n);
        }
        // A negative addition (noise) is least over the smallest divisor, a positive one over the greatest.
        return new Summary(
                perfpin.median / peer.median,
                Math.min(perfpin.min / peer.max, perfpin.min / peer.min),
                Math.max(perfpin.max / peer.min, perfpin.max / peer.max),
                n);
    }

    /**
     * {@code whole - this}, the spread turned round: what a fraction of a whole leaves of it (throughput kept,
     * 0.97, leaves 0.03 lost).
     */
    public Summary below(double whole) {
        return new Summary(whole - median, whole - max, whole - min, n);
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
        if (Double.isInfinite(value)) {
            return value > 0 ? "∞" : "−∞";
        }
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }
}
