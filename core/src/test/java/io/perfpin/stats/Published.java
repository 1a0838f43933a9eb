package io.perfpin.stats;

import io.perfpin.counter.CounterSnapshot;

/** A thread as a test publishes it, its times those given (0 unless said). */
record Published(
        int tid,
        long javaId,
        String name,
        String cpus,
        int pin,
        long enrolledNanos,
        long readFromNanos,
        long readToNanos,
        CounterSnapshot counts,
        int[] columns)
        implements PublishedThread {
    /** A new thread, with no counts yet. */
    static Published of(int tid, long javaId, String name, String cpus) {
        return of(tid, javaId, name, cpus, new CounterSnapshot(0), new int[0]);
    }

    static Published of(int tid, long javaId, String name, String cpus, CounterSnapshot counts, int[] columns) {
        return new Published(tid, javaId, name, cpus, StatsLayout.PIN_NONE, 0, 0, 0, counts, columns);
    }

    /** Counts of a thread already in a slot. */
    static Published counts(String cpus, CounterSnapshot counts, int[] columns) {
        return of(1, 1, "", cpus, counts, columns);
    }

    /** This thread, its counts read between {@code from} and {@code to}. */
    Published readBetween(long from, long to) {
        return new Published(tid, javaId, name, cpus, pin, enrolledNanos, from, to, counts, columns);
    }
}
