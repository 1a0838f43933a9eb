package io.perfpin.registry;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.cpu.CpuAssignment;
import io.perfpin.cpu.CpuSet;
import io.perfpin.event.EventList;

/**
 * A thread the registry counts. Fields are set when it is enrolled; {@link #slot}, {@link #columns} and
 * {@link #cpus} belong to the sampler thread from admission on, {@link #ended} is set by the thread itself.
 */
final class TrackedThread {
    final Thread thread;
    final String name;
    final long javaId;
    final int tid;
    final EventList events;
    final CounterGroup counters;
    final CounterSnapshot counts;
    /** The affinity it had before perfpin pinned it, to restore on detach; null when not pinned. */
    final CpuSet originalCpus;
    final CpuAssignment assignment;
    final long enrolledNanos;
    volatile boolean ended;
    int slot = -1;
    int[] columns;
    String cpus = "";

    TrackedThread(Thread thread, int tid, EventList events, CounterGroup counters, CpuSet originalCpus,
                  CpuAssignment assignment) {
        this.thread = thread;
        this.name = thread.getName();
        this.javaId = thread.getId();
        this.tid = tid;
        this.events = events;
        this.counters = counters;
        this.counts = counters.newSnapshot();
        this.originalCpus = originalCpus;
        this.assignment = assignment;
        this.enrolledNanos = System.nanoTime();
    }

    boolean hasEnded() {
        return ended || !thread.isAlive();
    }
}
