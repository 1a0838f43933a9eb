package io.perfpin.report;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.EventFailure;
import io.perfpin.event.BoundMetric;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.event.UnsupportedEvent;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * What was measured for one thread, ready to show or export: per event the scaled value and its coverage,
 * the derived metrics, and for each event that was not counted, why. Immutable.
 */
public final class ThreadReport {
    private final String name;
    private final int tid;
    private final long javaId;
    private final String cpus;
    private final long wallNanos;
    private final Map<String, Long> counters;
    private final Map<String, Double> coverage;
    private final Map<String, Double> metrics;
    private final Map<String, String> unsupported;
    private final Map<String, String> sources;
    private final PinSource pin;
    private final int lastCpu;

    private ThreadReport(String name, int tid, long javaId, String cpus, long wallNanos, Map<String, Long> counters,
                         Map<String, Double> coverage, Map<String, Double> metrics, Map<String, String> unsupported,
                         Map<String, String> sources, PinSource pin, int lastCpu) {
        this.name = name;
        this.tid = tid;
        this.javaId = javaId;
        this.cpus = cpus;
        this.wallNanos = wallNanos;
        this.counters = Collections.unmodifiableMap(counters);
        this.coverage = Collections.unmodifiableMap(coverage);
        this.metrics = Collections.unmodifiableMap(metrics);
        this.unsupported = Collections.unmodifiableMap(unsupported);
        this.sources = Collections.unmodifiableMap(sources);
        this.pin = pin;
        this.lastCpu = lastCpu;
    }

    /**
     * @param events   what was asked for; {@code counts} is indexed like {@code events.events()}
     * @param failures the events the kernel refused for this thread
     * @param wallNanos the wall time the counts cover (for per-second metrics), or -1 when unknown
     */
    public static ThreadReport of(String name, int tid, long javaId, String cpus, EventList events,
                                  CounterSnapshot counts, List<EventFailure> failures, long wallNanos) {
        Map<String, String> unsupported = new LinkedHashMap<>();
        for (UnsupportedEvent u : events.unsupported()) {
            unsupported.put(u.event(), u.reason());
        }
        java.util.Set<Integer> refused = new java.util.HashSet<>();
        for (EventFailure f : failures) {
            unsupported.put(f.event().name(), f.reason());
            refused.add(f.index());
        }
        Map<String, Long> counters = new LinkedHashMap<>();
        Map<String, Double> coverage = new LinkedHashMap<>();
        List<EventSpec> specs = events.events();
        double[] values = new double[specs.size()];
        for (int i = 0; i < specs.size(); i++) {
            String event = specs.get(i).name();
            if (counts.isCounted(i) && !refused.contains(i)) {
                counters.put(event, counts.value(i));
                coverage.put(event, counts.coverage(i));
                values[i] = counts.value(i);
            } else {
                values[i] = Double.NaN;
                // Enabled but never on a counter: the PMU had no room for it all the while.
                unsupported.putIfAbsent(event, counts.enabledNanos(i) > 0
                        ? "never scheduled on a counter (multiplexed out): count fewer events" : "not counted");
            }
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        for (BoundMetric metric : events.metrics()) {
            double value = metric.evaluate(values, wallNanos < 0 ? Double.NaN : wallNanos);
            if (!Double.isNaN(value)) {
                metrics.put(metric.name(), value);
            }
        }
        return new ThreadReport(name, tid, javaId, cpus, wallNanos, counters, coverage, metrics, unsupported,
                Map.of(), PinSource.NONE, -1);
    }

    /**
     * A report whose values were measured elsewhere: read back from a JSON-lines record, or derived from a
     * stats file. The maps are copied, in their order.
     */
    public static ThreadReport fromValues(String name, int tid, long javaId, String cpus, long wallNanos,
                                          Map<String, Long> counters, Map<String, Double> coverage,
                                          Map<String, Double> metrics, Map<String, String> unsupported) {
        return new ThreadReport(name, tid, javaId, cpus, wallNanos, new LinkedHashMap<>(counters),
                new LinkedHashMap<>(coverage), new LinkedHashMap<>(metrics), new LinkedHashMap<>(unsupported),
                Map.of(), PinSource.NONE, -1);
    }

    /**
     * This report, saying where the values of some events came from when not from perf_event_open
     * ({@link io.perfpin.counter.ThreadCounters#sources()}): event name to source. The map is copied.
     */
    public ThreadReport withSources(Map<String, String> eventSources) {
        return new ThreadReport(name, tid, javaId, cpus, wallNanos, counters, coverage, metrics, unsupported,
                new LinkedHashMap<>(eventSources), pin, lastCpu);
    }

    /** This report, saying who set the thread's CPUs. */
    public ThreadReport withPin(PinSource source) {
        return new ThreadReport(name, tid, javaId, cpus, wallNanos, counters, coverage, metrics, unsupported, sources,
                source, lastCpu);
    }

    /** This report, with the CPU the thread last ran on as a viewer read it; itself when that is unknown. */
    public ThreadReport withLastCpu(OptionalInt cpu) {
        return cpu.isEmpty() ? this
                : new ThreadReport(name, tid, javaId, cpus, wallNanos, counters, coverage, metrics, unsupported, sources,
                pin, cpu.getAsInt());
    }

    /** The CPU it last ran on, -1 when unknown (a recording, or a thread that ended). */
    public int lastCpu() {
        return lastCpu;
    }

    public PinSource pin() {
        return pin;
    }

    public String name() {
        return name;
    }

    public int tid() {
        return tid;
    }

    /** The Java thread id, or -1 when the thread is not known to be a Java thread. */
    public long javaId() {
        return javaId;
    }

    /** The allowed CPUs, Linux list syntax. */
    public String cpus() {
        return cpus;
    }

    public long wallNanos() {
        return wallNanos;
    }

    /** Event name to value, scaled when multiplexed (see {@link #coverage()}); only counted events. */
    public Map<String, Long> counters() {
        return counters;
    }

    /** Event name to the fraction of the time it was counted, 1.0 when throughout. */
    public Map<String, Double> coverage() {
        return coverage;
    }

    /** Derived metric name (ipc, cpi, dTLB-mpki, ...) to value, only those that could be computed. */
    public Map<String, Double> metrics() {
        return metrics;
    }

    /** Event name to the reason it was not counted. */
    public Map<String, String> unsupported() {
        return unsupported;
    }

    /**
     * Event name to where its value came from, for the events whose value perf_event_open did not count
     * ({@code proc}: the scheduler's count in /proc); empty when every value did.
     */
    public Map<String, String> sources() {
        return sources;
    }
}
