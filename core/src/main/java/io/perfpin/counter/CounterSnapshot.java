package io.perfpin.counter;

/**
 * The counts of one {@link CounterGroup} at one moment, or the difference of two such moments: per event
 * the raw count and the times the kernel had it enabled and actually running on a counter.
 *
 * <p>Reusable: {@link CounterGroup#read(CounterSnapshot)} and {@link #delta} write into an existing
 * instance, so a sampler allocates nothing per read. Values are scaled as {@link Counts} says.
 */
public final class CounterSnapshot implements Counts {
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

    @Override
    public int size() {
        return raw.length;
    }

    /** The count the hardware or kernel reported, not extrapolated. */
    @Override
    public long raw(int event) {
        return raw[event];
    }

    @Override
    public long enabledNanos(int event) {
        return enabledNanos[event];
    }

    @Override
    public long runningNanos(int event) {
        return runningNanos[event];
    }

    @Override
    public boolean isOpened(int event) {
        return opened[event];
    }

    void notOpened(int event) {
        opened[event] = false;
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
