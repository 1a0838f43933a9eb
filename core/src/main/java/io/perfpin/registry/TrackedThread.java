package io.perfpin.registry;

import io.perfpin.counter.ThreadCounters;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.event.EventList;


/**
 * A thread the registry counts. Fields are set when it is enrolled; {@link #slot} and {@link #columns} are its
 * place in the stats file, set by the {@link StatsPublisher} when it first publishes it, {@link #ended} is set by
 * the thread itself, {@link #pinning} and {@link #cpus} change when a thread already counted is pinned.
 */
final class TrackedThread implements SampledThread {
    final Thread thread;
    final String name;
    final long javaId;
    final int tid;
    final EventList events;
    final ThreadCounters counters;
    final CounterSnapshot counts;
    /** How perfpin pinned it, to undo on detach; null when not pinned. */
    volatile Pinning pinning;
    /** Whether perfpin pinned it at some point: its pin is undone before the tick's listener sees it end. */
    volatile boolean everPinned;
    /** It runs with a pin it inherited from the pinned thread that started it, as a rule allowed. */
    final boolean inheritedPin;
    final long enrolledNanos;
    volatile boolean ended;
    int slot = -1;
    int[] columns;
    volatile String cpus = "";

    TrackedThread(Thread thread, int tid, EventList events, ThreadCounters counters, Pinning pinning,
                  boolean inheritedPin) {
        this.thread = thread;
        this.name = thread.getName();
        this.javaId = thread.getId();
        this.tid = tid;
        this.events = events;
        this.counters = counters;
        this.counts = counters.newSnapshot();
        this.pinning = pinning;
        this.everPinned = pinning != null;
        this.inheritedPin = inheritedPin;
        this.enrolledNanos = System.nanoTime();
    }

    @Override
    public Thread thread() {
        return thread;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int tid() {
        return tid;
    }

    @Override
    public String cpus() {
        return cpus;
    }

    @Override
    public boolean pinned() {
        return everPinned;
    }

    @Override
    public long enrolledNanos() {
        return enrolledNanos;
    }

    /** False when it holds no counter, for want of file descriptors. */
    @Override
    public boolean isCounted() {
        return counters.notCounted() == null;
    }

    @Override
    public EventList events() {
        return events;
    }

    @Override
    public CounterSnapshot counts() {
        return counts;
    }

    boolean hasEnded() {
        return ended || !thread.isAlive();
    }
}
