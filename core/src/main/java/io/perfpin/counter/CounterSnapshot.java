package io.perfpin.counter;

/**
 * The counts of one {@link CounterGroup} at one moment, or the difference of two such moments: per event
 * the raw count and the times the kernel had it enabled and actually running on a counter.
 *
 * <p>Reusable: {@link CounterGroup#read(CounterSnapshot)} and {@link #delta} write into an existing
 * instance, so a sampler allocates nothing per read. A value is only ever scaled openly:
 * {@link #value(int)} extrapolates when the event was multiplexed, and {@link #coverage(int)} says by how
 * much, so a reader never gets a silently scaled number.
 */
public final class CounterSnapshot {
    private final long[] raw;
    private final long[] enabledNanos;
    private final long[] runningNanos;
    /** False for an event the kernel refused: it has no counts at all, not zero counts. */
    private final boolean[] opened;

    public CounterSnapshot(int events) {
        raw = new long[events];
        enabledNanos = new long[events];
        runningNanos = new long[events];
        opened = new boolean[events];
        java.util.Arrays.fill(opened, true);
    }

    public int size() {
        return raw.length;
    }

    /** The count the hardware or kernel reported, not extrapolated. */
    public long raw(int event) {
        return raw[event];
    }

    public long enabledNanos(int event) {
        return enabledNanos[event];
    }

    public long runningNanos(int event) {
        return runningNanos[event];
    }

    /**
     * Whether the counts are known: false for an event the kernel refused, and for one that was enabled but
     * never got a counter (multiplexed out throughout). A per-thread event's times only advance while its
     * thread runs, so a thread that did not run has exactly zero counts, and those are counted.
     */
    public boolean isCounted(int event) {
        return opened[event] && (runningNanos[event] > 0 || enabledNanos[event] == 0);
    }

    /** Time running over time enabled: 1.0 when counted throughout (or the thread never ran), below when multiplexed. */
    public double coverage(int event) {
        long enabled = enabledNanos[event];
        return enabled == 0 ? (opened[event] ? 1.0 : 0.0) : (double) runningNanos[event] / enabled;
    }

    void notOpened(int event) {
        opened[event] = false;
    }

    /**
     * The count extrapolated to the whole enabled time ({@code raw * enabled / running}), exactly the raw
     * count when coverage is 1, and 0 when never counted (check {@link #isCounted}).
     */
    public long value(int event) {
        long running = runningNanos[event];
        long enabled = enabledNanos[event];
        if (running == 0) {
            return 0;
        }
        if (running == enabled) {
            return raw[event];
        }
        return Math.round(raw[event] * ((double) enabled / running));
    }

    void set(int event, long count, long enabled, long running) {
        raw[event] = count;
        enabledNanos[event] = enabled;
        runningNanos[event] = running;
    }

    /** Writes {@code later - earlier} into {@code out}, event by event; all three must be the same size. */
    public static void delta(CounterSnapshot later, CounterSnapshot earlier, CounterSnapshot out) {
        for (int i = 0; i < out.raw.length; i++) {
            out.opened[i] = later.opened[i];
            out.raw[i] = later.raw[i] - earlier.raw[i];
            out.enabledNanos[i] = later.enabledNanos[i] - earlier.enabledNanos[i];
            out.runningNanos[i] = later.runningNanos[i] - earlier.runningNanos[i];
        }
    }

    /** Copies {@code from} into this snapshot. */
    public void copyFrom(CounterSnapshot from) {
        System.arraycopy(from.raw, 0, raw, 0, raw.length);
        System.arraycopy(from.enabledNanos, 0, enabledNanos, 0, raw.length);
        System.arraycopy(from.runningNanos, 0, runningNanos, 0, raw.length);
        System.arraycopy(from.opened, 0, opened, 0, raw.length);
    }
}
