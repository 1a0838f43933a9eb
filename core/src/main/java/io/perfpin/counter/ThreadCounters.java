package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.Syscalls;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Counts one thread, of another process as {@code perfpin stat} does or of its own as the agent does: its events
 * through perf_event_open ({@link CounterGroup}), and, for each software event of the {@code sched} kinds that the
 * kernel does not permit (EACCES or EPERM: at {@code perf_event_paranoid} 2 an unprivileged user may not count kernel
 * side, which these events do), the scheduler's own count of the same thing in {@code /proc}
 * ({@link SchedulerCounts}), from when this opened. Such an event is counted, exactly, with coverage 1, and
 * {@link #sources()} says where its value came from; one that /proc cannot give either stays unsupported, with
 * both reasons. The /proc counts are read at each {@link #read}, and by the thread itself as it ends
 * ({@link #threadEnding}): once the thread has ended, they stay as last read.
 */
public final class ThreadCounters implements AutoCloseable {
    /** The source of a value read from /proc, as {@link #sources()} names it. */
    public static final String PROC = "proc";
    /** What a value from {@link #PROC} is, said once wherever such values are shown. */
    public static final String PROC_EXPLAINED = "the kernel does not permit this event to perfpin here"
            + " (perf_event_paranoid), so its value is the scheduler's own count in /proc/<pid>/task/<tid>: exact, at"
            + " no cost to the thread";

    private final CounterGroup group;
    private final List<EventFailure> unsupported;
    /** By event index: the count read instead, or null for an event counted by the group (or not at all). */
    private final SchedulerCounts[] fromProc;

    private final long pid;
    private final long[] first;
    private final long[] last;
    private final long openedNanos;
    private long lastElapsed = 1;
    private final Map<String, String> sources;
    /** Set by {@link #disable}: the /proc values stay as last read, as a disabled counter's do. */
    private boolean frozen;

    private ThreadCounters(
            CounterGroup group,
            List<EventFailure> unsupported,
            SchedulerCounts[] fromProc,
            long pid,
            long[] first,
            Map<String, String> sources) {
        this.group = group;
        this.unsupported = Collections.unmodifiableList(unsupported);
        this.fromProc = fromProc;
        this.pid = pid;
        this.first = first;
        this.last = first.clone();
        this.openedNanos = System.nanoTime();
        this.sources = Collections.unmodifiableMap(sources);
    }

    /**
     * Opens {@code events} for thread {@code tid} of process {@code pid}, as
     * {@link CounterGroup#open(Syscalls, int, List, RefusedEvents, DescriptorBudget)} does, and reads /proc for
     * those it may not count. A thread not counted for want of descriptors has no value from /proc either.
     */
    public static ThreadCounters open(
            Syscalls syscalls,
            long pid,
            int tid,
            List<EventSpec> events,
            RefusedEvents refused,
            DescriptorBudget budget) {
        CounterGroup group = CounterGroup.open(syscalls, tid, events, refused, budget);
        try {
            return withProc(group, pid, tid, events);
        } catch (RuntimeException | Error e) {
            group.close(); // its descriptors go with the failure, not with the thread that never got them
            throw e;
        }
    }

    /** The counters of a thread whose group the C library opened, or could not, as {@code group} says. */
    public static ThreadCounters of(CounterGroup group, long pid) {
        return withProc(group, pid, group.tid(), group.events());
    }

    private static ThreadCounters withProc(CounterGroup group, long pid, int tid, List<EventSpec> events) {
        SchedulerCounts[] fromProc = new SchedulerCounts[events.size()];
        long[] first = new long[events.size()];
        List<EventFailure> unsupported = new ArrayList<>();
        Map<String, String> sources = new LinkedHashMap<>();
        SchedulerCounts.Reading now = null;
        for (EventFailure failure : group.unsupported()) {
            Optional<SchedulerCounts> count = group.notCounted() == null && notPermitted(failure)
                    ? SchedulerCounts.of(failure.event())
                    : Optional.empty();
            if (count.isPresent() && now == null) {
                now = new SchedulerCounts.Reading(pid, tid);
            }
            OptionalLong value = count.isPresent() ? now.count(count.get()) : OptionalLong.empty();
            if (value.isPresent()) {
                fromProc[failure.index()] = count.get();
                first[failure.index()] = value.getAsLong();
                sources.put(failure.event().name(), PROC);
            } else if (count.isPresent()) {
                unsupported.add(new EventFailure(
                        failure.event(),
                        failure.index(),
                        failure.errno(),
                        failure.reason()
                                + "; and /proc/<pid>/task/<tid>/" + count.get().fileName()
                                + " has no such count to read instead"
                                + (count.get() == SchedulerCounts.CPU_MIGRATIONS
                                        ? " (se.nr_migrations is there only in a kernel built with CONFIG_SCHED_DEBUG)"
                                        : "")));
            } else {
                unsupported.add(failure);
            }
        }
        return new ThreadCounters(group, unsupported, fromProc, pid, first, sources);
    }

    private static boolean notPermitted(EventFailure failure) {
        return failure.errno() == Errno.EACCES || failure.errno() == Errno.EPERM;
    }

    public int tid() {
        return group.tid();
    }

    /** The events neither the kernel nor /proc counts for this thread, with the reasons. */
    public List<EventFailure> unsupported() {
        return unsupported;
    }

    /** As {@link CounterGroup#notCounted()}: why this thread holds no descriptor at all; null when it counts. */
    public String notCounted() {
        return group.notCounted();
    }

    /** As {@link CounterGroup#highestDescriptor()}. */
    public int highestDescriptor() {
        return group.highestDescriptor();
    }

    /** Event name to where its value comes from, for each not counted by perf_event_open: {@link #PROC}. */
    public Map<String, String> sources() {
        return sources;
    }

    public CounterSnapshot newSnapshot() {
        return CounterGroup.snapshotFor(group.events(), unsupported);
    }

    /**
     * Reads every counted event into {@code into}: a value from /proc is its change since this opened, enabled
     * and running all that time. Returns 0, or -errno of the first kernel group that failed.
     */
    public synchronized int read(CounterSnapshot into) {
        int result = group.read(into);
        if (!frozen) {
            readProc();
        }
        for (int i = 0; i < fromProc.length; i++) {
            if (fromProc[i] != null) {
                into.set(i, last[i] - first[i], lastElapsed, lastElapsed);
            }
        }
        return result;
    }

    private void readProc() {
        SchedulerCounts.Reading now = null;
        for (int i = 0; i < fromProc.length; i++) {
            if (fromProc[i] != null) {
                now = now != null ? now : new SchedulerCounts.Reading(pid, group.tid());
                OptionalLong value = now.count(fromProc[i]);
                if (value.isPresent()) {
                    last[i] = value.getAsLong();
                }
            }
        }
        lastElapsed = Math.max(1, System.nanoTime() - openedNanos);
    }

    /**
     * Stops counting, as {@link CounterGroup#disable()} does: the counts read from now on are those of this
     * moment, for the kernel's events and /proc's alike.
     */
    public synchronized void disable() {
        group.disable();
        freeze();
    }

    /**
     * Called on the thread itself as it leaves its run(): its /proc files go with it, so their counts are read one
     * last time here, and stay. Nothing for events counted by perf_event_open, whose descriptors keep their counts.
     */
    public synchronized void threadEnding() {
        if (!sources.isEmpty()) {
            freeze();
        }
    }

    private void freeze() {
        if (!frozen) {
            readProc();
            frozen = true;
        }
    }

    @Override
    public void close() {
        group.close();
    }
}
