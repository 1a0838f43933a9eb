package io.perfpin.registry;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.report.PinSource;
import io.perfpin.stats.PublishedThread;
import io.perfpin.stats.StatsLayout;

/**
 * A thread the registry counts. Fields are set when it is enrolled; {@link #slot} and {@link #columns} are its
 * place in the stats file, set by the {@link StatsPublisher} when it first publishes it, {@link #ended} is set by
 * the thread itself, {@link #pinning} and {@link #cpus} change when a thread already counted is pinned. The
 * sampler {@link #read}s its counts, with the times they were read between.
 */
final class TrackedThread implements PublishedThread, SampledThread {
    final Thread thread;
    final String name;
    final long javaId;
    final int tid;
    final EventList events;
    final ThreadCounters counters;
    final CounterSnapshot counts;
    /** How perfpin pinned it, to undo on detach; null when not pinned. */
    volatile ThreadPins.Pin pinning;
    /** It runs with a pin it inherited from the pinned thread that started it, as a rule allowed. */
    final boolean inheritedPin;
    /** Before its counters opened, so that its counts start after it. */
    final long enrolledNanos;

    private long readFromNanos;
    private long readToNanos;
    /** Whether perfpin ever pinned it while counted: its records say so after the pin is undone. */
    private volatile boolean pinnedByPerfpin;

    volatile boolean ended;
    int slot = -1;
    int[] columns;
    volatile String cpus = "";

    TrackedThread(
            Thread thread,
            int tid,
            EventList events,
            ThreadCounters counters,
            ThreadPins.Pin pinning,
            boolean inheritedPin,
            long enrolledNanos) {
        this.thread = thread;
        this.name = thread.getName();
        this.javaId = thread.getId();
        this.tid = tid;
        this.events = events;
        this.counters = counters;
        this.counts = counters.newSnapshot();
        this.inheritedPin = inheritedPin;
        this.enrolledNanos = enrolledNanos;
        this.readFromNanos = enrolledNanos;
        this.readToNanos = enrolledNanos;
        pinned(pinning);
    }

    /** Records how perfpin pinned it; null when it did not (or could not). */
    void pinned(ThreadPins.Pin how) {
        pinning = how;
        if (how != null) {
            pinnedByPerfpin = true;
        }
    }

    /** Reads its counts now, noting the time just before and just after. */
    void read() {
        readFromNanos = System.nanoTime();
        counters.read(counts);
        readToNanos = System.nanoTime();
    }

    /** Who set its CPUs, for its records: perfpin, when it ever pinned it while counted. */
    PinSource pinSource() {
        return pinnedByPerfpin ? PinSource.PERFPIN : inheritedPin ? PinSource.INHERITED : PinSource.NONE;
    }

    @Override
    public Thread thread() {
        return thread;
    }

    @Override
    public int tid() {
        return tid;
    }

    @Override
    public long javaId() {
        return javaId;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String cpus() {
        return cpus;
    }

    @Override
    public int pin() {
        PinSource source = pinSource();
        return source == PinSource.PERFPIN
                ? StatsLayout.PIN_PERFPIN
                : source == PinSource.INHERITED ? StatsLayout.PIN_INHERITED : StatsLayout.PIN_NONE;
    }

    @Override
    public boolean pinned() {
        return pinnedByPerfpin;
    }

    @Override
    public long enrolledNanos() {
        return enrolledNanos;
    }

    @Override
    public long readFromNanos() {
        return readFromNanos;
    }

    @Override
    public long readToNanos() {
        return readToNanos;
    }

    @Override
    public CounterSnapshot counts() {
        return counts;
    }

    @Override
    public int[] columns() {
        return columns;
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

    boolean hasEnded() {
        return ended || !thread.isAlive();
    }
}
