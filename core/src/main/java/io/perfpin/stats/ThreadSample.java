package io.perfpin.stats;

import io.perfpin.counter.Counts;

/**
 * One slot of a stats file as a reader saw it, consistent (taken under the slot's seqlock) and checked against
 * the rules of {@link StatsLayout}. Its columns are the events the file named when it was read.
 */
public final class ThreadSample implements Counts {
    private final int state;
    private final int tid;
    private final long javaId;
    private final int lastCpu;
    private final int threads;
    private final long enrolledNanos;
    private final long readFromNanos;
    private final long readToNanos;
    private final int flags;
    private final String name;
    private final String cpus;
    private final long[] values;
    private final long[] enabledNanos;
    private final long[] runningNanos;
    private final byte[] counted;

    ThreadSample(
            int state,
            int tid,
            long javaId,
            int lastCpu,
            int threads,
            long enrolledNanos,
            long readFromNanos,
            long readToNanos,
            int flags,
            String name,
            String cpus,
            byte[] counted,
            long[] values,
            long[] enabledNanos,
            long[] runningNanos) {
        this.state = state;
        this.tid = tid;
        this.javaId = javaId;
        this.lastCpu = lastCpu;
        this.threads = threads;
        this.enrolledNanos = enrolledNanos;
        this.readFromNanos = readFromNanos;
        this.readToNanos = readToNanos;
        this.flags = flags;
        this.name = name;
        this.cpus = cpus;
        this.values = values;
        this.enabledNanos = enabledNanos;
        this.runningNanos = runningNanos;
        this.counted = counted;
    }

    /**
     * {@link StatsLayout#STATE_RUNNING}, {@code STATE_FINISHED}, {@code STATE_AGGREGATE}, or one of a virtual
     * group's: {@code STATE_VIRTUAL_GROUP}, {@code STATE_VIRTUAL_P50}, {@code STATE_VIRTUAL_P99},
     * {@code STATE_VIRTUAL_RUNNING}.
     */
    public int state() {
        return state;
    }

    /**
     * One of a virtual group's four slots: its name is the group's, its threads the members that ended so far (the
     * running slot's: those running now).
     */
    public boolean isVirtualGroup() {
        return state == StatsLayout.STATE_VIRTUAL_GROUP
                || state == StatsLayout.STATE_VIRTUAL_P50
                || state == StatsLayout.STATE_VIRTUAL_P99
                || state == StatsLayout.STATE_VIRTUAL_RUNNING;
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

    /** 1 for a thread; for the aggregate slot, how many finished threads it sums; for a virtual group, its members. */
    public int threads() {
        return threads;
    }

    /** The agent's {@code System.nanoTime()} before the thread's counters opened: its counts start after it. */
    public long enrolledNanos() {
        return enrolledNanos;
    }

    /** The agent's {@code System.nanoTime()} before these counts were read. */
    public long readFromNanos() {
        return readFromNanos;
    }

    /** The agent's {@code System.nanoTime()} after these counts were read. */
    public long readToNanos() {
        return readToNanos;
    }

    /** Its flags word ({@link StatsLayout#FLAGS_OFFSET}). */
    int flags() {
        return flags;
    }

    /** {@link StatsLayout#PIN_NONE}, {@link StatsLayout#PIN_PERFPIN} or {@link StatsLayout#PIN_INHERITED}. */
    public int pin() {
        return flags & StatsLayout.PIN_MASK;
    }

    /** A finished thread that still ran when its counting stopped: the agent detached, or the JVM exited. */
    public boolean stillRunning() {
        return (flags & StatsLayout.FLAG_STILL_RUNNING) != 0;
    }

    /** Whether its name was longer than the file keeps ({@link StatsLayout#NAME_SIZE}), and is cut. */
    public boolean nameCut() {
        return (flags & StatsLayout.FLAG_NAME_CUT) != 0;
    }

    public String name() {
        return name;
    }

    /** The allowed CPUs in Linux list syntax. */
    public String cpus() {
        return cpus;
    }

    /** How many event columns it has: as many as the file named when it was read. */
    @Override
    public int size() {
        return values.length;
    }

    /** How many event columns it has: as many as the file named when it was read. */
    public int events() {
        return values.length;
    }

    /** Whether the thread counts event {@code e}: false for one it does not count, or the kernel refused it. */
    @Override
    public boolean isOpened(int e) {
        return (counted[e >> 3] & (1 << (e & 7))) != 0;
    }

    /** The raw cumulative count of event {@code e}. */
    @Override
    public long raw(int e) {
        return values[e];
    }

    @Override
    public long enabledNanos(int e) {
        return enabledNanos[e];
    }

    @Override
    public long runningNanos(int e) {
        return runningNanos[e];
    }
}
