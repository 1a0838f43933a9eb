package io.perfpin.registry;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.event.EventList;

/**
 * A counted thread as the sampler has just read it, for work that exports per thread on the sampler's tick
 * ({@link ThreadRegistry#forEachSampled}). Valid during that call only: the sampler reuses the counts.
 */
public interface SampledThread {
    Thread thread();

    /** Its name when it was enrolled. */
    String name();

    /** Its Linux TID. */
    int tid();

    /** What it counts; {@link #counts()} is indexed like {@code events().events()}. */
    EventList events();

    /** Its counts since it was enrolled, as this tick read them. */
    CounterSnapshot counts();

    /** {@link System#nanoTime()} when it was enrolled: where its counts start. */
    long enrolledNanos();
}
