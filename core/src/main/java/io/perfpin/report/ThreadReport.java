package io.perfpin.report;

import io.perfpin.counter.Counts;
import io.perfpin.counter.EventFailure;
import io.perfpin.event.DerivedMetric;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.event.Presets;
import io.perfpin.event.UnsupportedEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.IntFunction;

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
    private final Labels labels;

    /**
     * What a report says beside its counts, each set by its own {@code with} method: where some values came from,
     * who set the thread's CPUs, the CPU it last ran on, whether it still ran, the simulated PMU, whether it
     * belongs under the row before it, and whether its name is cut.
     */
    private record Labels(
            Map<String, String> sources,
            PinSource pin,
            int lastCpu,
            ThreadState state,
            String pmu,
            boolean follows,
            boolean nameCut) {
        static final Labels NONE = new Labels(Map.of(), PinSource.NONE, -1, null, null, false, false);
    }

    private ThreadReport(
            String name,
            int tid,
            long javaId,
            String cpus,
            long wallNanos,
            Map<String, Long> counters,
            Map<String, Double> coverage,
            Map<String, Double> metrics,
            Map<String, String> unsupported,
            Labels labels) {
        this.name = name;
        this.tid = tid;
        this.javaId = javaId;
        this.cpus = cpus;
        this.wallNanos = wallNanos;
        this.counters = Collections.unmodifiableMap(counters);
        this.coverage = Collections.unmodifiableMap(coverage);
        this.metrics = Collections.unmodifiableMap(metrics);
        this.unsupported = Collections.unmodifiableMap(unsupported);
        this.labels = labels;
    }

    /** This report's counts with other labels. */
    private ThreadReport(ThreadReport counts, Labels labels) {
        this(
                counts.name,
                counts.tid,
                counts.javaId,
                counts.cpus,
                counts.wallNanos,
                counts.counters,
                counts.coverage,
                counts.metrics,
                counts.unsupported,
                labels);
    }

    /**
     * @param events   what was asked for; {@code counts} is indexed like {@code events.events()}
     * @param failures the events the kernel refused for this thread
     * @param wallNanos the wall time the counts cover (for per-second metrics), or -1 when unknown
     */
    public static ThreadReport of(
            String name,
            int tid,
            long javaId,
            String cpus,
            EventList events,
            Counts counts,
            List<EventFailure> failures,
            long wallNanos) {
        Map<Integer, String> refused = new HashMap<>();
        for (EventFailure f : failures) {
            refused.put(f.index(), f.reason());
        }
        List<String> names = new ArrayList<>();
        events.events().forEach(spec -> names.add(spec.name()));
        ThreadReport report = of(name, tid, javaId, cpus, names, counts, refused::get, wallNanos);
        if (events.unsupported().isEmpty()) {
            return report;
        }
        Map<String, String> unsupported = new LinkedHashMap<>();
        for (UnsupportedEvent u : events.unsupported()) {
            unsupported.put(u.event(), u.reason());
        }
        unsupported.putAll(report.unsupported);
        return new ThreadReport(
                name,
                tid,
                javaId,
                cpus,
                wallNanos,
                report.counters,
                report.coverage,
                report.metrics,
                unsupported,
                report.labels);
    }

    /**
     * The one place where counts become a report: each event's value, scaled when it was multiplexed, with its
     * coverage; why each other event was not counted; and every derived metric whose inputs were counted
     * ({@link #metrics(Map, long)}).
     *
     * @param events    the events' names; {@code counts} is indexed like them
     * @param refusal   why the kernel refused event {@code i} to this thread, or null when it did not
     * @param wallNanos the wall time the counts cover (for per-second metrics), or -1 when unknown
     */
    public static ThreadReport of(
            String name,
            int tid,
            long javaId,
            String cpus,
            List<String> events,
            Counts counts,
            IntFunction<String> refusal,
            long wallNanos) {
        Map<String, Long> counters = new LinkedHashMap<>();
        Map<String, Double> coverage = new LinkedHashMap<>();
        Map<String, String> unsupported = new LinkedHashMap<>();
        for (int i = 0; i < events.size(); i++) {
            String event = events.get(i);
            String refused = refusal.apply(i);
            if (refused == null && counts.isCounted(i)) {
                counters.put(event, counts.value(i));
                coverage.put(event, counts.coverage(i));
            } else {
                // Enabled but never on a counter: the PMU had no room for it all the while.
                unsupported.putIfAbsent(
                        event,
                        refused != null
                                ? refused
                                : counts.isOpened(i)
                                        ? "never scheduled on a counter (multiplexed out): count fewer events"
                                        : "not counted");
            }
        }
        return new ThreadReport(
                name,
                tid,
                javaId,
                cpus,
                wallNanos,
                counters,
                coverage,
                metrics(counters, wallNanos),
                unsupported,
                Labels.NONE);
    }

    /**
     * Every preset's metric whose inputs were all counted, each once: the rule for every report, whatever the
     * events were asked as. An event asked with modifiers ({@code ipc:k} counts {@code cycles:k} and
     * {@code instructions:k}) gives the metric with the same modifiers ({@code ipc:k}).
     *
     * @param wallNanos the wall time the counts cover; -1 when unknown, which leaves out the per-second metrics
     */
    public static Map<String, Double> metrics(Map<String, Long> counters, long wallNanos) {
        Set<String> modifiers = new LinkedHashSet<>(List.of(""));
        for (String event : counters.keySet()) {
            String modifier = modifier(event);
            if (modifier != null) {
                modifiers.add(modifier);
            }
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        for (String modifier : modifiers) {
            for (DerivedMetric metric : Presets.metrics()) {
                double value = metric(metric, modifier, counters, wallNanos);
                if (!Double.isNaN(value)) {
                    metrics.putIfAbsent(metric.name() + modifier, value);
                }
            }
        }
        return metrics;
    }

    /**
     * The modifiers an event was asked with, with their colon ({@code :k} of {@code cycles:k}), as the event parser
     * reads them; null when it has none.
     */
    private static String modifier(String event) {
        int colon = event.lastIndexOf(':');
        return colon >= 0 && EventParser.isModifiers(event.substring(colon + 1)) ? event.substring(colon) : null;
    }

    /** The names of the metrics that counts of {@code events} give ({@link #metrics}), known before any count. */
    public static List<String> metricNames(List<String> events) {
        Map<String, Long> counted = new LinkedHashMap<>();
        events.forEach(event -> counted.put(event, 1L));
        return List.copyOf(metrics(counted, 1).keySet());
    }

    private static double metric(DerivedMetric metric, String modifier, Map<String, Long> counters, long wallNanos) {
        double[] inputs = new double[metric.inputs().size()];
        for (int i = 0; i < inputs.length; i++) {
            String input = metric.inputs().get(i);
            Long count = counters.get(input + modifier);
            boolean wall = input.equals(DerivedMetric.WALL_NANOS);
            if (wall ? wallNanos <= 0 : count == null) {
                return Double.NaN;
            }
            inputs[i] = wall ? wallNanos : count;
        }
        return metric.compute(inputs);
    }

    /**
     * A report whose values were measured elsewhere: read back from a JSON-lines record, or derived from a
     * stats file. The maps are copied, in their order.
     */
    public static ThreadReport fromValues(
            String name,
            int tid,
            long javaId,
            String cpus,
            long wallNanos,
            Map<String, Long> counters,
            Map<String, Double> coverage,
            Map<String, Double> metrics,
            Map<String, String> unsupported) {
        return new ThreadReport(
                name,
                tid,
                javaId,
                cpus,
                wallNanos,
                new LinkedHashMap<>(counters),
                new LinkedHashMap<>(coverage),
                new LinkedHashMap<>(metrics),
                new LinkedHashMap<>(unsupported),
                Labels.NONE);
    }

    /**
     * This report, saying where the values of some events came from when not from perf_event_open
     * ({@link io.perfpin.counter.ThreadCounters#sources()}): event name to source. The map is copied.
     */
    public ThreadReport withSources(Map<String, String> eventSources) {
        Labels l = labels;
        return new ThreadReport(
                this,
                new Labels(
                        Collections.unmodifiableMap(new LinkedHashMap<>(eventSources)),
                        l.pin,
                        l.lastCpu,
                        l.state,
                        l.pmu,
                        l.follows,
                        l.nameCut));
    }

    /** This report, saying who set the thread's CPUs. */
    public ThreadReport withPin(PinSource source) {
        Labels l = labels;
        return new ThreadReport(this, new Labels(l.sources, source, l.lastCpu, l.state, l.pmu, l.follows, l.nameCut));
    }

    /** This report, with the CPU the thread last ran on as a viewer read it; itself when that is unknown. */
    public ThreadReport withLastCpu(OptionalInt cpu) {
        Labels l = labels;
        return cpu.isEmpty()
                ? this
                : new ThreadReport(
                        this, new Labels(l.sources, l.pin, cpu.getAsInt(), l.state, l.pmu, l.follows, l.nameCut));
    }

    /** This report, saying whether the thread ran on at its end, or had ended. */
    public ThreadReport withState(ThreadState threadState) {
        Labels l = labels;
        return new ThreadReport(
                this, new Labels(l.sources, l.pin, l.lastCpu, threadState, l.pmu, l.follows, l.nameCut));
    }

    /** This report, saying which simulated PMU counted its hardware events (as a recording read back says). */
    public ThreadReport withPmu(String simulatedPmu) {
        Labels l = labels;
        if (Objects.equals(simulatedPmu, l.pmu)) {
            return this; // the common case, none: every record written passes here
        }
        return new ThreadReport(
                this, new Labels(l.sources, l.pin, l.lastCpu, l.state, simulatedPmu, l.follows, l.nameCut));
    }

    /**
     * This report, as a row that belongs under the row before it (a virtual group's p50 and p99 under its totals, its
     * busiest members after them): a table sorted by any column keeps it there, whatever its own values.
     */
    public ThreadReport withFollows() {
        Labels l = labels;
        return new ThreadReport(this, new Labels(l.sources, l.pin, l.lastCpu, l.state, l.pmu, true, l.nameCut));
    }

    /**
     * This report, saying whether its name is cut: a live view's names come from the agent's stats file, which keeps
     * a name whole up to {@link io.perfpin.stats.StatsLayout#NAME_SIZE} bytes (the recording keeps it whole).
     */
    public ThreadReport withNameCut(boolean cut) {
        Labels l = labels;
        if (cut == l.nameCut) {
            return this;
        }
        return new ThreadReport(this, new Labels(l.sources, l.pin, l.lastCpu, l.state, l.pmu, l.follows, cut));
    }

    /** Whether its name is cut ({@link #withNameCut}): the thread's own is longer. */
    public boolean nameCut() {
        return labels.nameCut;
    }

    /** Whether it belongs under the row before it ({@link #withFollows}). */
    public boolean follows() {
        return labels.follows;
    }

    /**
     * The simulated PMU that counted the hardware events ({@code "simulated skylake"}), or null where the
     * processor's did: tests only ({@code io.perfpin.nativeio.Backends#simulatedPmu()}: the JVM that counts
     * says so), and said in every output made with it.
     */
    public String pmu() {
        return labels.pmu;
    }

    /** Whether the thread still ran at the end of the counts, or had ended; null when not known (a recording). */
    public ThreadState state() {
        return labels.state;
    }

    /** The CPU it last ran on, -1 when unknown (a recording, or a thread that ended). */
    public int lastCpu() {
        return labels.lastCpu;
    }

    public PinSource pin() {
        return labels.pin;
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
        return labels.sources;
    }
}
