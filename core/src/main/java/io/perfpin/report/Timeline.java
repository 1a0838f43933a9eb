package io.perfpin.report;

import io.perfpin.event.DerivedMetric;
import io.perfpin.event.GenericEvents;
import io.perfpin.event.Presets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One thread over time, from its records in a recording, in the order written: each window between two
 * successive records, with per event its rate per second, and per derived metric that is not itself a rate
 * (ipc, misses per 1000 instructions) its value over the window. A time event (task-clock) is given as the share
 * of the window's wall time, as {@code cpu-utilisation} is; a rate metric ({@code cs-per-sec}) would repeat an
 * event's rate, so it is not given twice.
 *
 * <p>A thread's records are read as {@link ThreadTotals} reads them; a group's timeline ({@link Timelines}) is the
 * sum of its threads' at each time the recording wrote some of them, its wall time the time that passed (so a
 * group's share of task-clock is in CPUs, and may pass 1). At most {@link #MAX_POINTS} points are kept:
 * beyond that every other one is dropped, which widens the windows and keeps every count.
 */
public final class Timeline {
    public static final int MAX_POINTS = 256;

    /** One series: a value per window, NaN where the window has none. */
    public record Series(String name, DerivedMetric.Unit unit, double[] values) {}

    private final Map<String, double[]> cumulative = new LinkedHashMap<>();
    private final Set<String> metricNames = new LinkedHashSet<>();
    private long[] millis = new long[MAX_POINTS];
    private double[] wall = new double[MAX_POINTS];
    private String[] cpus = new String[MAX_POINTS];
    private int size;
    private final ThreadTotals totals = new ThreadTotals();

    /** Adds the next record of this thread. */
    public void add(ThreadRecord record) {
        if (totals.add(record)) {
            ThreadReport r = record.report();
            addPoint(record.epochMillis(), totals.wallNanos(), r.cpus(), totals.counts());
            metricNames.addAll(r.metrics().keySet());
        }
    }

    /**
     * Adds a window ending at {@code epochMillis}: the counts and the wall time since the first window began.
     *
     * @param allowed the CPUs it could run on at the window's end, Linux list syntax; empty for a group
     */
    void addPoint(long epochMillis, double wallNanos, String allowed, Map<String, Double> counts) {
        if (size == MAX_POINTS) {
            halve();
        }
        int i = size++;
        millis[i] = epochMillis;
        wall[i] = wallNanos;
        cpus[i] = allowed;
        counts.forEach((event, value) -> cumulative.computeIfAbsent(event, k -> filled(Double.NaN))[i] = value);
    }

    /** Follows the metrics named, as a thread's records name theirs. */
    void addMetrics(Set<String> names) {
        metricNames.addAll(names);
    }

    /** Each window's end, epoch milliseconds. */
    public long[] endMillis() {
        return Arrays.copyOf(millis, size);
    }

    /** The wall time each window covers, nanoseconds. */
    public double[] windowNanos() {
        double[] windows = new double[size];
        for (int i = 0; i < size; i++) {
            windows[i] = windowWall(i);
        }
        return windows;
    }

    /** The thread's allowed CPUs at each window's end, Linux list syntax. */
    public List<String> cpus() {
        return List.of(Arrays.copyOf(cpus, size));
    }

    /** Each event's rate per second (time events: the share of wall time), then each metric that is no rate. */
    public List<Series> series() {
        List<Series> series = new ArrayList<>();
        for (Map.Entry<String, double[]> e : cumulative.entrySet()) {
            boolean time = GenericEvents.countsNanoseconds(e.getKey());
            double[] rate = new double[size];
            for (int i = 0; i < size; i++) {
                rate[i] = window(e.getValue(), i) / windowWall(i) * (time ? 1 : 1e9);
            }
            series.add(new Series(e.getKey(), time ? DerivedMetric.Unit.SHARE : DerivedMetric.Unit.PER_SECOND, rate));
        }
        for (String name : metricNames) {
            Optional<DerivedMetric> metric = Presets.metric(name);
            if (metric.isEmpty() || metric.get().inputs().contains(DerivedMetric.WALL_NANOS)) {
                continue;
            }
            double[] values = new double[size];
            double[] inputs = new double[metric.get().inputs().size()];
            for (int i = 0; i < size; i++) {
                for (int k = 0; k < inputs.length; k++) {
                    double[] counts = cumulative.get(metric.get().inputs().get(k));
                    inputs[k] = counts == null ? Double.NaN : window(counts, i);
                }
                values[i] = metric.get().compute(inputs);
            }
            series.add(new Series(name, metric.get().unit(), values));
        }
        return series;
    }

    /** The count over window {@code i}: since the point before, or since the thread was enrolled. */
    private double window(double[] values, int i) {
        return i == 0 ? values[0] : values[i] - values[i - 1];
    }

    private double windowWall(int i) {
        return i == 0 ? wall[0] : wall[i] - wall[i - 1];
    }

    /** Keeps every other point, and the latest. */
    private void halve() {
        int kept = 0;
        for (int i = 1; i < size; i += 2) {
            millis[kept] = millis[i];
            wall[kept] = wall[i];
            cpus[kept] = cpus[i];
            for (double[] values : cumulative.values()) {
                values[kept] = values[i];
            }
            kept++;
        }
        for (double[] values : cumulative.values()) {
            Arrays.fill(values, kept, values.length, Double.NaN);
        }
        size = kept;
    }

    private static double[] filled(double value) {
        double[] values = new double[MAX_POINTS];
        Arrays.fill(values, value);
        return values;
    }
}
