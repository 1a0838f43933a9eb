package io.perfpin.cli;

import io.perfpin.event.DerivedMetric;
import io.perfpin.event.Preset;
import io.perfpin.event.Presets;
import io.perfpin.report.ThreadReport;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.StatsSnapshot;
import io.perfpin.stats.ThreadSample;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The threads of a stats file at one moment, as the reader checked them, turned into reports: a live thread's
 * counts over the time since an earlier view, or every thread's totals.
 *
 * <p>The file holds raw counts with their enabled and running times, and no event list: values are scaled
 * by running over enabled time as for a live count, and the metrics are those of every preset whose inputs
 * the thread has. An event a thread has no counts of at all (it does not count it, or the kernel refused
 * it; the file cannot tell which) is reported as not counted.
 */
final class StatsView {
    private static final String NO_COUNTS = "no counts in the stats file: this thread does not count it, or the"
            + " kernel refused it (the agent's warnings say which)";
    private static final String MULTIPLEXED_OUT = "never on a counter over this interval (multiplexed out):"
            + " count fewer events";

    private final StatsSnapshot snapshot;
    /** The events named, in column order: every sample of the snapshot has these columns. */
    private final List<String> events;
    private final List<ThreadSample> live = new ArrayList<>();
    private final List<ThreadSample> finished = new ArrayList<>();
    private final ThreadSample older;
    private final long nanoTime = System.nanoTime();

    private StatsView(StatsSnapshot snapshot) {
        this.snapshot = snapshot;
        this.events = snapshot.eventNames();
        ThreadSample aggregate = null;
        for (ThreadSample sample : snapshot.threads()) {
            switch (sample.state()) {
                case StatsLayout.STATE_RUNNING:
                    live.add(sample);
                    break;
                case StatsLayout.STATE_FINISHED:
                    finished.add(sample);
                    break;
                default:
                    aggregate = sample;
                    break;
            }
        }
        older = aggregate;
    }

    /** @throws IOException when the file is damaged, or was truncated */
    static StatsView read(StatsFileReader reader) throws IOException {
        return new StatsView(reader.snapshot());
    }

    private static String key(ThreadSample s) {
        return s.tid() + "/" + s.javaId();
    }

    /** How many live threads the view holds. */
    int liveThreads() {
        return live.size();
    }

    /** How many threads the agent enrolled but could not count, for want of file descriptors, so far. */
    /** What the agent said so far, in the order it said it. */
    List<AgentNotice> notices() {
        return snapshot.notices();
    }

    long threadsNotCounted() {
        return snapshot.threadsNotCounted();
    }

    /** How many file descriptors the agent may hold. */
    long descriptorBudget() {
        return snapshot.descriptorBudget();
    }

    /**
     * Each live thread's counts since {@code earlier}; a thread that was not live then counts from its start.
     */
    List<ThreadReport> liveSince(StatsView earlier) {
        Map<String, ThreadSample> before = new HashMap<>();
        earlier.live.forEach(s -> before.put(key(s), s));
        long wall = nanoTime - earlier.nanoTime;
        List<ThreadReport> reports = new ArrayList<>();
        for (ThreadSample now : live) {
            ThreadSample then = before.get(key(now));
            int n = events.size();
            long[] raw = new long[n];
            long[] enabled = new long[n];
            long[] running = new long[n];
            long[] everEnabled = new long[n];
            for (int e = 0; e < n; e++) {
                boolean known = then != null && e < then.events();
                raw[e] = now.raw(e) - (known ? then.raw(e) : 0);
                enabled[e] = now.enabledNanos(e) - (known ? then.enabledNanos(e) : 0);
                running[e] = now.runningNanos(e) - (known ? then.runningNanos(e) : 0);
                everEnabled[e] = now.enabledNanos(e);
            }
            reports.add(report(now.name(), now.tid(), now.javaId(), now.cpus(), raw, enabled, running, everEnabled,
                    wall));
        }
        return reports;
    }

    /** Each live thread's totals since it was enrolled. */
    List<ThreadReport> liveTotals() {
        return totals(live);
    }

    /** Each finished thread of the ring, with its final totals. */
    List<ThreadReport> finishedThreads() {
        return totals(finished);
    }

    private List<ThreadReport> totals(List<ThreadSample> samples) {
        List<ThreadReport> reports = new ArrayList<>();
        int n = events.size();
        for (ThreadSample s : samples) {
            long[] raw = new long[n];
            long[] enabled = new long[n];
            long[] running = new long[n];
            for (int e = 0; e < n; e++) {
                raw[e] = s.raw(e);
                enabled[e] = s.enabledNanos(e);
                running[e] = s.runningNanos(e);
            }
            reports.add(report(s.name(), s.tid(), s.javaId(), s.cpus(), raw, enabled, running, enabled, -1));
        }
        return reports;
    }

    /** All finished threads' totals summed, the ring's and the older ones' alike; null when none finished. */
    ThreadReport finishedTotal() {
        List<ThreadSample> all = new ArrayList<>(finished);
        if (older != null && older.threads() > 0) {
            all.add(older);
        }
        if (all.isEmpty()) {
            return null;
        }
        int n = events.size();
        long[] raw = new long[n];
        long[] enabled = new long[n];
        long[] running = new long[n];
        long threads = 0;
        for (ThreadSample s : all) {
            threads += s.threads();
            for (int e = 0; e < n; e++) {
                raw[e] += s.raw(e);
                enabled[e] += s.enabledNanos(e);
                running[e] += s.runningNanos(e);
            }
        }
        return report("(" + threads + " finished " + (threads == 1 ? "thread)" : "threads)"), 0, -1, "", raw, enabled,
                running, enabled, -1);
    }

    /**
     * @param everEnabled the thread's cumulative enabled times: zero means it has no counts of that event
     * @param wallNanos   the wall time the counts cover, -1 when unknown (totals): no per-second metrics then
     */
    private ThreadReport report(String name, int tid, long javaId, String cpus, long[] raw, long[] enabled,
                                long[] running, long[] everEnabled, long wallNanos) {
        Map<String, Long> counters = new LinkedHashMap<>();
        Map<String, Double> coverage = new LinkedHashMap<>();
        Map<String, String> unsupported = new LinkedHashMap<>();
        for (int e = 0; e < events.size(); e++) {
            String event = events.get(e);
            if (everEnabled[e] == 0) {
                String refusal = snapshot.eventRefusal(e);
                unsupported.put(event, refusal.isEmpty() ? NO_COUNTS : refusal);
            } else if (running[e] == 0 && enabled[e] > 0) {
                unsupported.put(event, MULTIPLEXED_OUT);
            } else {
                counters.put(event, running[e] == enabled[e] ? raw[e]
                        : Math.round(raw[e] * ((double) enabled[e] / running[e])));
                coverage.put(event, enabled[e] == 0 ? 1.0 : (double) running[e] / enabled[e]);
            }
        }
        Map<String, String> sources = new LinkedHashMap<>();
        for (int e = 0; e < events.size(); e++) {
            if (counters.containsKey(events.get(e)) && !snapshot.eventSource(e).isEmpty()) {
                sources.put(events.get(e), snapshot.eventSource(e));
            }
        }
        return ThreadReport.fromValues(name, tid, javaId, cpus, wallNanos, counters, coverage,
                metrics(counters, wallNanos), unsupported).withSources(sources);
    }

    /** Every preset metric whose inputs are all there, each once. */
    private static Map<String, Double> metrics(Map<String, Long> counters, long wallNanos) {
        Map<String, Double> metrics = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (Preset preset : Presets.all()) {
            for (DerivedMetric metric : preset.metrics()) {
                if (!seen.add(metric.name())) {
                    continue;
                }
                double[] inputs = new double[metric.inputs().size()];
                boolean complete = true;
                for (int i = 0; i < inputs.length && complete; i++) {
                    String input = metric.inputs().get(i);
                    Long count = counters.get(input);
                    boolean wall = input.equals(DerivedMetric.WALL_NANOS);
                    complete = wall ? wallNanos > 0 : count != null;
                    inputs[i] = wall ? wallNanos : complete ? count : Double.NaN;
                }
                double value = complete ? metric.compute(inputs) : Double.NaN;
                if (!Double.isNaN(value)) {
                    metrics.put(metric.name(), value);
                }
            }
        }
        return metrics;
    }
}
