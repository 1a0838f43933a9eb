package io.perfpin.stats;

import java.util.List;

/**
 * A whole stats file at one moment, as {@link StatsFileReader#snapshot} read and checked it: the events named,
 * and every slot in use, live threads first, then the finished ones, then the aggregate of older finished ones.
 */
public final class StatsSnapshot {
    private final List<String> eventNames;
    private final List<String> refusals;
    private final List<String> sources;
    private final long finishedTotal;
    private final StatsClosing closing;
    private final long heartbeatEpochMillis;
    private final long threadsNotCounted;
    private final long descriptorBudget;
    private final List<ThreadSample> threads;
    private final List<AgentNotice> notices;
    private final long samples;
    private final long sampleNanos;
    private final int liveSlots;
    private final String pmu;

    StatsSnapshot(
            List<String> eventNames,
            List<String> refusals,
            List<String> sources,
            long finishedTotal,
            StatsClosing closing,
            long heartbeatEpochMillis,
            long threadsNotCounted,
            long descriptorBudget,
            List<ThreadSample> threads,
            List<AgentNotice> notices,
            long samples,
            long sampleNanos,
            int liveSlots,
            String pmu) {
        this.eventNames = List.copyOf(eventNames);
        this.refusals = List.copyOf(refusals);
        this.sources = List.copyOf(sources);
        this.finishedTotal = finishedTotal;
        this.closing = closing;
        this.heartbeatEpochMillis = heartbeatEpochMillis;
        this.threadsNotCounted = threadsNotCounted;
        this.descriptorBudget = descriptorBudget;
        this.threads = List.copyOf(threads);
        this.notices = List.copyOf(notices);
        this.samples = samples;
        this.sampleNanos = sampleNanos;
        this.liveSlots = liveSlots;
        this.pmu = pmu;
    }

    /**
     * The simulated PMU that made the hardware counts, such as {@code simulated skylake} (tests only); null for the
     * kernel's: the agent's JVM knows, a viewer's does not.
     */
    public String pmu() {
        return pmu;
    }

    /** How many samples the agent had published: a window ends at each. */
    public long samples() {
        return samples;
    }

    /** The agent's {@code System.nanoTime()} when its last sample began. */
    public long sampleNanos() {
        return sampleNanos;
    }

    /** The live slots the file had: it grows them as threads need them. */
    public int liveSlots() {
        return liveSlots;
    }

    /** What the agent told its user so far, in the order it said it. */
    public List<AgentNotice> notices() {
        return notices;
    }

    /** The events named, in column order. */
    public List<String> eventNames() {
        return eventNames;
    }

    /** Why the kernel refused the event of a column; empty when it refused it to no thread. */
    public String eventRefusal(int column) {
        return refusals.get(column);
    }

    /**
     * Where the values of a column come from when not from perf_event_open ({@code proc}: the scheduler's own
     * count in /proc); empty for perf_event_open.
     */
    public String eventSource(int column) {
        return sources.get(column);
    }

    /** How many threads finished so far. */
    public long finishedTotal() {
        return finishedTotal;
    }

    /** Whether the writer had closed the file (the JVM exited or the agent detached). */
    public boolean isClosed() {
        return closing != StatsClosing.OPEN;
    }

    /** Whether, and why, the writer had closed the file. */
    public StatsClosing closing() {
        return closing;
    }

    public long heartbeatEpochMillis() {
        return heartbeatEpochMillis;
    }

    /** Threads the agent enrolled without counters so far, for want of file descriptors. */
    public long threadsNotCounted() {
        return threadsNotCounted;
    }

    /** How many file descriptors the agent may hold (agent option fds=). */
    public long descriptorBudget() {
        return descriptorBudget;
    }

    /** Every slot in use: running threads, then finished ones, then the aggregate slot, then the virtual groups. */
    public List<ThreadSample> threads() {
        return threads;
    }
}
