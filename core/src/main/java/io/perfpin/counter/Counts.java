package io.perfpin.counter;

/**
 * Per-event counts of one thread, cumulative or over a window, as the kernel gave them: per event the raw count
 * and the times the kernel had it enabled and actually running on a counter. A value is only ever scaled openly:
 * {@link #value(int)} extrapolates when the event was multiplexed, and {@link #coverage(int)} says by how much, so
 * a reader never gets a silently scaled number. This is the one place where counts are scaled, for a live counter
 * ({@link CounterSnapshot}) and for what a stats file holds alike.
 */
public interface Counts {
    int size();

    /** False for an event the kernel refused the thread: it has no counts at all, not zero counts. */
    boolean isOpened(int event);

    /** The count the hardware or kernel reported, not extrapolated. */
    long raw(int event);

    long enabledNanos(int event);

    long runningNanos(int event);

    /**
     * Whether the counts are known: false for an event the kernel refused, and for one that was enabled but
     * never got a counter (multiplexed out throughout). A per-thread event's times only advance while its
     * thread runs, so a thread that did not run has exactly zero counts, and those are counted.
     */
    default boolean isCounted(int event) {
        return isOpened(event) && (runningNanos(event) > 0 || enabledNanos(event) == 0);
    }

    /** Time running over time enabled: 1.0 when counted throughout (or it never ran), below when multiplexed. */
    default double coverage(int event) {
        long enabled = enabledNanos(event);
        return enabled == 0 ? (isOpened(event) ? 1.0 : 0.0) : (double) runningNanos(event) / enabled;
    }

    /**
     * The count extrapolated to the whole enabled time ({@code raw * enabled / running}), exactly the raw
     * count when coverage is 1, and 0 when never counted (check {@link #isCounted}).
     */
    default long value(int event) {
        long running = runningNanos(event);
        long enabled = enabledNanos(event);
        if (running == 0) {
            return 0;
        }
        if (running == enabled) {
            return raw(event);
        }
        return Math.round(raw(event) * ((double) enabled / running));
    }
}
