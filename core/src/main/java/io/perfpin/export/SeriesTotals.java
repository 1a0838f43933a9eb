package io.perfpin.export;

import io.perfpin.counter.CounterSnapshot;
import java.util.Arrays;
import java.util.List;

/**
 * The running totals of one exported series, by event: what its finished threads counted (folded in for good)
 * plus, for the current tick, what its live threads have counted so far, and, for a group of virtual threads, what its
 * running members have (as the last tick found them: kept until the next gives them again). A total never goes down: an
 * extrapolated count (an event multiplexed) that comes out below what was exported before is exported at that
 * earlier value, so that Prometheus and OpenTelemetry never see a counter reset that did not happen. Its coverage
 * of an event is published only where it says something: for an event that can be multiplexed, and while below 1.
 */
final class SeriesTotals {
    final String group;
    final String thread;
    final String cpus;
    private long[] folded = new long[0];
    private long[] foldedEnabled = new long[0];
    private long[] foldedRunning = new long[0];
    private long[] live = new long[0];
    private long[] liveEnabled = new long[0];
    private long[] liveRunning = new long[0];
    private long[] virtual = new long[0];
    private long[] virtualEnabled = new long[0];
    private long[] virtualRunning = new long[0];
    private boolean[] counted = new boolean[0];
    private double[] exported = new double[0];
    /** Live threads counted here; only a thread's own series is ever given up, once it has none. */
    int liveThreads;
    /** When its last live thread ended (System.nanoTime()); meaningful while {@link #liveThreads} is 0. */
    long endedNanos;

    SeriesTotals(String group, String thread, String cpus) {
        this.group = group;
        this.thread = thread;
        this.cpus = cpus;
    }

    void clearLive() {
        Arrays.fill(live, 0);
        Arrays.fill(liveEnabled, 0);
        Arrays.fill(liveRunning, 0);
    }

    /** Adds a live thread's counts so far; {@code eventIndex} maps its events to the export's, -1 for none. */
    void addLive(CounterSnapshot counts, int[] eventIndex) {
        add(counts, eventIndex, live, liveEnabled, liveRunning);
    }

    /** Adds the running members of a group of virtual threads, their totals so far summed, until the next clear. */
    void addVirtualLive(CounterSnapshot counts, int[] eventIndex) {
        add(counts, eventIndex, virtual, virtualEnabled, virtualRunning);
    }

    void clearVirtualLive() {
        Arrays.fill(virtual, 0);
        Arrays.fill(virtualEnabled, 0);
        Arrays.fill(virtualRunning, 0);
    }

    /** Folds in a finished thread's final counts, for good. */
    void fold(CounterSnapshot counts, int[] eventIndex) {
        add(counts, eventIndex, folded, foldedEnabled, foldedRunning);
    }

    private void add(CounterSnapshot counts, int[] eventIndex, long[] values, long[] enabled, long[] running) {
        for (int i = 0; i < eventIndex.length; i++) {
            int e = eventIndex[i];
            if (e >= 0 && counts.isCounted(i)) {
                values[e] += counts.value(i);
                enabled[e] += counts.enabledNanos(i);
                running[e] += counts.runningNanos(i);
                counted[e] = true;
            }
        }
    }

    /**
     * Takes in, for good, what an ended series counted: its threads' final counts (an ended series has no live
     * ones), so that the sum of the two is what each was.
     */
    void absorb(SeriesTotals ended) {
        ensureEvents(ended.counted.length);
        for (int e = 0; e < ended.counted.length; e++) {
            folded[e] += ended.folded[e];
            foldedEnabled[e] += ended.foldedEnabled[e];
            foldedRunning[e] += ended.foldedRunning[e];
            counted[e] |= ended.counted[e];
        }
    }

    /** Makes room for {@code events} events; called before any thread with a new event is added. */
    void ensureEvents(int events) {
        if (events > counted.length) {
            folded = Arrays.copyOf(folded, events);
            foldedEnabled = Arrays.copyOf(foldedEnabled, events);
            foldedRunning = Arrays.copyOf(foldedRunning, events);
            live = Arrays.copyOf(live, events);
            liveEnabled = Arrays.copyOf(liveEnabled, events);
            liveRunning = Arrays.copyOf(liveRunning, events);
            virtual = Arrays.copyOf(virtual, events);
            virtualEnabled = Arrays.copyOf(virtualEnabled, events);
            virtualRunning = Arrays.copyOf(virtualRunning, events);
            counted = Arrays.copyOf(counted, events);
            exported = Arrays.copyOf(exported, events);
        }
    }

    /** The series as exported now; null while none of its threads counted anything. */
    ExportSnapshot.Series publish(List<ExportedEvent> events) {
        double[] totals = new double[events.size()];
        double[] coverage = new double[events.size()];
        boolean any = false;
        for (int e = 0; e < totals.length; e++) {
            if (e >= counted.length || !counted[e]) {
                totals[e] = Double.NaN;
                coverage[e] = Double.NaN;
                continue;
            }
            any = true;
            // a virtual thread that ended between two ticks can be in neither sum for a tick: the max holds it
            exported[e] = Math.max(exported[e], events.get(e).exported(folded[e] + live[e] + virtual[e]));
            totals[e] = exported[e];
            long enabled = foldedEnabled[e] + liveEnabled[e] + virtualEnabled[e];
            double ratio =
                    enabled == 0 ? 1.0 : (double) (foldedRunning[e] + liveRunning[e] + virtualRunning[e]) / enabled;
            // 1 says nothing: the total is as counted. Only a ratio below 1 (extrapolated) is worth a series.
            coverage[e] = events.get(e).multiplexed() && ratio < 1 ? ratio : Double.NaN;
        }
        return any ? new ExportSnapshot.Series(group, thread, cpus, totals, coverage) : null;
    }
}
