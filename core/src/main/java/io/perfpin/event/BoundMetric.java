package io.perfpin.event;

import java.util.Objects;

/**
 * A preset's metric tied to the positions of its inputs in an {@link EventList}, so that a reporter evaluates it
 * per thread from that thread's counts without looking names up.
 */
public final class BoundMetric {
    /** Input position standing for the wall time rather than an event. */
    public static final int WALL = -1;
    /** Input position of an event this machine cannot count; the metric is then unsupported. */
    public static final int MISSING = -2;

    private final DerivedMetric metric;
    private final String preset;
    private final int[] inputIndices;
    private final String unsupportedReason;

    BoundMetric(DerivedMetric metric, String preset, int[] inputIndices, String unsupportedReason) {
        this.metric = Objects.requireNonNull(metric, "metric");
        this.preset = Objects.requireNonNull(preset, "preset");
        this.inputIndices = inputIndices.clone();
        this.unsupportedReason = unsupportedReason;
    }

    public DerivedMetric metric() {
        return metric;
    }

    public String name() {
        return metric.name();
    }

    /** The preset that asked for this metric, with the modifiers it was asked with ({@code ipc:k}). */
    public String preset() {
        return preset;
    }

    /**
     * For each of {@code metric().inputs()}, its index in {@link EventList#events()}, or {@link #WALL}, or
     * {@link #MISSING} for an event this machine cannot count.
     */
    public int[] inputIndices() {
        return inputIndices.clone();
    }

    public boolean supported() {
        return unsupportedReason == null;
    }

    /** Why this CPU cannot have the metric (an Intel-only input on AMD, say); null when it can. */
    public String unsupportedReason() {
        return unsupportedReason;
    }

    public boolean needsWallTime() {
        return metric.inputs().contains(DerivedMetric.WALL_NANOS);
    }

    /**
     * The metric for one thread.
     *
     * @param counts    that thread's counts, indexed like {@link EventList#events()}; NaN for an event that could
     *                  not be counted
     * @param wallNanos the wall time the counts cover, NaN when unknown (only metrics that need it suffer)
     * @return NaN when unsupported, when an input is NaN, or when the metric is undefined (nothing measured)
     */
    public double evaluate(double[] counts, double wallNanos) {
        if (unsupportedReason != null) {
            return Double.NaN;
        }
        double[] values = new double[inputIndices.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = inputIndices[i] == WALL ? wallNanos : counts[inputIndices[i]];
        }
        return metric.compute(values);
    }

    @Override
    public String toString() {
        return preset + "." + metric.name() + (supported() ? "" : " (unsupported: " + unsupportedReason + ")");
    }
}
