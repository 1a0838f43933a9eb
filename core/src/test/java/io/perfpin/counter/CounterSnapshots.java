package io.perfpin.counter;

/** Builds snapshots with given counts, for tests of what consumes them (the arithmetic is the real one). */
public final class CounterSnapshots {
    private CounterSnapshots() {}

    public static CounterSnapshot of(long[] raw, long enabledNanos, long runningNanos) {
        CounterSnapshot snapshot = new CounterSnapshot(raw.length);
        fill(snapshot, raw, enabledNanos, runningNanos);
        return snapshot;
    }

    public static void set(CounterSnapshot snapshot, int event, long raw, long enabledNanos, long runningNanos) {
        snapshot.set(event, raw, enabledNanos, runningNanos);
    }

    public static void fill(CounterSnapshot snapshot, long[] raw, long enabledNanos, long runningNanos) {
        for (int i = 0; i < raw.length; i++) {
            snapshot.set(i, raw[i], enabledNanos, runningNanos);
        }
    }
}
