package io.perfpin.registry;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.event.EventList;

/**
 * A thread as the sampler has just read it, for the work that shares its tick ({@link ThreadRegistry.TickListener}:
 * the metrics exports, JFR events). Valid on the tick's thread during the call only: the next tick reads into the
 * same counts.
 */
public interface SampledThread {
    /** The thread; null for a virtual thread that ended, which is not kept while its record waits for a tick. */
    Thread thread();

    /** The Java name it had when it was enrolled. */
    String name();

    /** Its Linux TID. */
    int tid();

    /** The CPUs it may run on, as a list ({@code 2}, {@code 0-3}). */
    String cpus();

    /** Whether perfpin pinned it, by a rule or {@code @Pinned}, now or before it ended. */
    boolean pinned();

    /** False when it holds no counter, for want of file descriptors: {@link #counts} are then all zero. */
    boolean isCounted();

    /** What it counts; {@link #counts()} is indexed like {@code events().events()}. */
    EventList events();

    /** Its counts since it was enrolled, as of this tick; final when the tick finalised it. */
    CounterSnapshot counts();

    /** {@link System#nanoTime()} when it was enrolled: where its counts start. */
    long enrolledNanos();
}
