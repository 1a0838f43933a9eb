package io.perfpin.report;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A thread's counts added up over its records, in the order written, since it was first seen: the one reading of
 * a recording's records over time that a {@link Timeline} plots and a group's timeline sums.
 *
 * <p>The agent's samples count since the thread was enrolled; {@code stat --interval}'s count one window each (a
 * sample whose {@code wallNanos} grew by less than half the time since the one before), and are added up, their
 * totals adding nothing. A final record ends a run of counts: a thread enrolled again (an annotated task on a pool
 * thread) counts from zero, after what it counted before.
 */
final class ThreadTotals {
    /** The counts and wall time after the last record added; only that record's events. */
    private Map<String, Double> last = Map.of();

    private double lastWall;
    /** Where the current run of counts starts: the counts and wall time before it. */
    private Map<String, Double> base = Map.of();

    private double baseWall;
    private ThreadRecord previous;
    private Boolean windows;

    /**
     * Adds the thread's next record.
     *
     * @return false when it adds nothing: the totals of {@code stat}'s windows, already added up
     */
    boolean add(ThreadRecord record) {
        ThreadReport r = record.report();
        if (previous == null || previous.isFinal()) {
            base = last;
            baseWall = lastWall;
            windows = null;
        } else if (!record.isFinal() && windows == null) {
            long gapNanos = (record.epochMillis() - previous.epochMillis()) * 1_000_000L;
            windows = r.wallNanos() - previous.report().wallNanos() < gapNanos / 2;
        }
        boolean addUp = Boolean.TRUE.equals(windows);
        previous = record;
        if (addUp && record.isFinal()) {
            // the totals of windows already added: their wall time, measured apart, differs by a clock's reading
            return false;
        }
        Map<String, Double> start = addUp ? last : base;
        double startWall = addUp ? lastWall : baseWall;
        Map<String, Double> counts = new LinkedHashMap<>();
        r.counters().forEach((event, value) -> counts.put(event, start.getOrDefault(event, 0.0) + value));
        last = counts;
        lastWall = startWall + r.wallNanos();
        return true;
    }

    /** Each event of the last record added: its count since the thread was first seen. */
    Map<String, Double> counts() {
        return last;
    }

    /** The wall time those counts cover, nanoseconds. */
    double wallNanos() {
        return lastWall;
    }
}
