package io.perfpin.event;

import java.util.List;
import java.util.Objects;

/**
 * A number computed from counters, such as instructions per cycle. Inputs are named by the events they read (as a
 * preset lists them), or {@link #WALL_NANOS} for the wall time the counts cover. Ratios are fractions, not
 * percentages; "per 1000 instructions" metrics are already scaled.
 */
public final class DerivedMetric {
    /** Pseudo input: the wall-clock nanoseconds the counts were taken over, supplied by whoever reads them. */
    public static final String WALL_NANOS = "wall-ns";

    /** The arithmetic, over the input values in the order {@link #inputs()} lists them. */
    @FunctionalInterface
    public interface Formula {
        double apply(double[] inputs);
    }

    /** What a value means, for an export that carries units (JFR) or a page that formats them. */
    public enum Unit {
        /** A plain number: instructions per cycle, misses per 1000 instructions. */
        NUMBER,
        /** A fraction of a whole, 0 to 1: shown as a percentage. */
        SHARE,
        /** Events per second of wall time: a frequency. */
        PER_SECOND
    }

    private final String name;
    private final String description;
    private final List<String> inputs;
    private final Formula formula;
    private final Unit unit;

    public DerivedMetric(String name, String description, List<String> inputs, Formula formula) {
        this(name, description, inputs, formula, Unit.NUMBER);
    }

    public DerivedMetric(String name, String description, List<String> inputs, Formula formula, Unit unit) {
        this.name = Objects.requireNonNull(name, "name");
        this.description = Objects.requireNonNull(description, "description");
        this.inputs = List.copyOf(inputs);
        this.formula = Objects.requireNonNull(formula, "formula");
        this.unit = Objects.requireNonNull(unit, "unit");
    }

    /** {@code scale * numerator / denominator}; NaN when the denominator is zero, nothing having been measured. */
    public static DerivedMetric ratio(
            String name, String description, String numerator, String denominator, double scale) {
        return ratio(name, description, numerator, denominator, scale, Unit.NUMBER);
    }

    /** {@code numerator / denominator} where the numerator counts a part of what the denominator counts. */
    public static DerivedMetric share(String name, String description, String numerator, String denominator) {
        return ratio(name, description, numerator, denominator, 1, Unit.SHARE);
    }

    private static DerivedMetric ratio(
            String name, String description, String numerator, String denominator, double scale, Unit unit) {
        return new DerivedMetric(name, description, List.of(numerator, denominator), new Ratio(scale), unit);
    }

    /**
     * A class, not a lambda: the presets make their ratios as the agent's premain parses its options, on the
     * application's main thread, where linking a lambda cost more than the rest of the presets.
     */
    private static final class Ratio implements Formula {
        private final double scale;

        Ratio(double scale) {
            this.scale = scale;
        }

        @Override
        public double apply(double[] x) {
            return x[1] == 0 ? Double.NaN : scale * x[0] / x[1];
        }
    }

    /** Events per 1000 instructions (MPKI for misses). */
    public static DerivedMetric perKiloInstruction(String name, String description, String event) {
        return ratio(name, description, event, "instructions", 1000);
    }

    /** Events per second of wall time. */
    public static DerivedMetric perSecond(String name, String description, String event) {
        return ratio(name, description, event, WALL_NANOS, 1e9, Unit.PER_SECOND);
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    public Unit unit() {
        return unit;
    }

    /** Event names (or {@link #WALL_NANOS}) the formula reads, in the order it reads them. */
    public List<String> inputs() {
        return inputs;
    }

    /**
     * The metric for input values given in {@link #inputs()} order; NaN when any input is NaN (not counted,
     * unsupported) or the metric is undefined for them.
     */
    public double compute(double... values) {
        if (values.length != inputs.size()) {
            throw new IllegalArgumentException(
                    name + " takes " + inputs.size() + " inputs " + inputs + ", got " + values.length);
        }
        for (double value : values) {
            if (Double.isNaN(value)) {
                return Double.NaN;
            }
        }
        return formula.apply(values);
    }

    @Override
    public String toString() {
        return name + ": " + description;
    }
}
