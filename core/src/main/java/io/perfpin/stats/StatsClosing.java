package io.perfpin.stats;

/**
 * Why the writer of a stats file closed it, as its closed field ({@link StatsLayout#CLOSED_OFFSET}) says: a viewer
 * names how counting ended from it, with no guess from how long the JVM takes to end.
 */
public enum StatsClosing {
    /** Still written: not closed. */
    OPEN(0),
    /** Closed as the JVM exits, by its shutdown hook: the final records are written, and the JVM ends next. */
    AT_EXIT(1),
    /** Closed while the JVM runs on: the agent detached, or stopped counting. */
    WHILE_RUNNING(2);

    /** The field's value. */
    final long value;

    StatsClosing(long value) {
        this.value = value;
    }

    /** The closing the field's {@code value} says; null for a value that is none of them (a damaged file). */
    static StatsClosing of(long value) {
        for (StatsClosing closing : values()) {
            if (closing.value == value) {
                return closing;
            }
        }
        return null;
    }
}
