package io.perfpin.stats;

/**
 * One slot of a stats file as a reader saw it, consistent (taken under the slot's seqlock) and checked against
 * the rules of {@link StatsLayout}. Its columns are the events the file named when it was read.
 */
public final class ThreadSample {
    private final int state;
    private final int tid;
    private final long javaId;
    private final int lastCpu;
    private final int threads;
    private final String name;
    private final String cpus;
    private final long[] values;
    private final long[] enabledNanos;
    private final long[] runningNanos;

    ThreadSample(int state, int tid, long javaId, int lastCpu, int threads, String name, String cpus, long[] values,
                 long[] enabledNanos, long[] runningNanos) {
        this.state = state;
        this.tid = tid;
        this.javaId = javaId;
        this.lastCpu = lastCpu;
        this.threads = threads;
        this.name = name;
        this.cpus = cpus;
        this.values = values;
        this.enabledNanos = enabledNanos;
        this.runningNanos = runningNanos;
    }

    /** {@link StatsLayout#STATE_RUNNING}, {@code STATE_FINISHED} or {@code STATE_AGGREGATE}. */
    public int state() {
        return state;
    }

    public int tid() {
        return tid;
    }

    public long javaId() {
        return javaId;
    }

    /** The CPU the thread last ran on, -1 when unknown. */
    public int lastCpu() {
        return lastCpu;
    }

    /** 1 for a thread; for the aggregate slot, how many finished threads it sums. */
    public int threads() {
        return threads;
    }

    public String name() {
        return name;
    }

    /** The allowed CPUs in Linux list syntax. */
    public String cpus() {
        return cpus;
    }

    /** How many event columns it has: as many as the file named when it was read. */
    public int events() {
        return values.length;
    }

    /** The raw cumulative count of event {@code e}. */
    public long raw(int e) {
        return values[e];
    }

    public long enabledNanos(int e) {
        return enabledNanos[e];
    }

    public long runningNanos(int e) {
        return runningNanos[e];
    }
}
