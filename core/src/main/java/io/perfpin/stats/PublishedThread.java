package io.perfpin.stats;

import io.perfpin.counter.CounterSnapshot;

/**
 * What {@link StatsFile} publishes of one thread: who it is, when its counting began, its counts so far and when
 * they were read. The writer reads these on each call and keeps nothing of them, so one object serves every tick.
 */
public interface PublishedThread {
    int tid();

    long javaId();

    String name();

    /** Its allowed CPUs, Linux list syntax. */
    String cpus();

    /** {@link StatsLayout#PIN_NONE}, {@link StatsLayout#PIN_PERFPIN} or {@link StatsLayout#PIN_INHERITED}. */
    int pin();

    /** {@code System.nanoTime()} before its counters opened. */
    long enrolledNanos();

    /** {@code System.nanoTime()} before {@link #counts()} were read. */
    long readFromNanos();

    /** {@code System.nanoTime()} after {@link #counts()} were read. */
    long readToNanos();

    /** Its cumulative counts since it was enrolled, indexed like {@link #columns()}. */
    CounterSnapshot counts();

    /** For each of its events, the file's column ({@link StatsFile#eventIndex}); negative skips the event. */
    int[] columns();
}
