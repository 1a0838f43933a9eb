package io.perfpin.stats;

/**
 * One slot of a stats file as a reader saw it, consistent (taken under the slot's seqlock). Reusable:
 * {@link StatsFileReader#read(int, ThreadSample)} overwrites it.
 */
public final class ThreadSample {
    int state;
    int tid;
    long javaId;
    int lastCpu;
    int threads;
    String name = "";
    String cpus = "";
    final long[] values;
    final long[] enabledNanos;
    final long[] runningNanos;

    public ThreadSample(int events) {
        values = new long[events];
        enabledNanos = new long[events];
        runningNanos = new long[events];
    }

    /** {@link StatsLayout#STATE_RUNNING}, {@code STATE_FINISHED}, {@code STATE_AGGREGATE} or {@code STATE_FREE}. */
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
