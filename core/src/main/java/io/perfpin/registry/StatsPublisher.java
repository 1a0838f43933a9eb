package io.perfpin.registry;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.EventFailure;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.export.ThreadGroupName;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.MappedFaults;
import io.perfpin.stats.StatsClosing;
import io.perfpin.stats.StatsFile;
import io.perfpin.stats.StatsLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The registry's threads in its stats file, for as long as the file is whole and at its path. The file lives in
 * the user's directory: truncated under the mapping, any write to the lost part would fault (SIGBUS); removed or
 * replaced, it is no longer what a viewer opens. Each tick checks it before writing, a fault that happens all the
 * same is caught, and either way the registry stops publishing there and says so once; counting and the recording
 * go on. Runs on the sampler thread, or on the thread that closes the registry once the sampler has stopped.
 */
final class StatsPublisher {
    private final StatsFile file;
    private final int liveSlots;
    private final Syscalls syscalls;
    private final Notices notices;
    private final NoticeSink sink;
    /** Notices said on any thread, written on the sampler's: the file has one writer. */
    private final Queue<AgentNotice> pending = new ConcurrentLinkedQueue<>();

    /** Virtual threads that ended since the last tick, added to their groups by the next. */
    private final Queue<EndedVirtual> virtualEnded = new ConcurrentLinkedQueue<>();

    /**
     * @param folded 0 for one virtual thread, named {@code name}, with its own counts; else how many of group
     *               {@code name} these counts sum ({@link StatsFile#virtualFolded})
     */
    private record EndedVirtual(String name, EventList events, CounterSnapshot counts, int folded) {}

    /** The virtual groups with members running, as the last tick found them; the file's next tick shows them. */
    private volatile List<RunningVirtualGroup> virtualRunning = List.of();

    /** Whether a virtual thread was left out of the file for want of a group slot: said once. */
    private boolean virtualGroupsFull;
    /** The event list whose columns were last worked out, and those: most threads share one list, the agent's. */
    private EventList columnsOf;

    private int[] lastColumns;

    private volatile boolean stopped;
    private volatile boolean noticesFull;

    /**
     * @param notices what the publisher itself has to say (the registry's notices, posted here too), and where a
     *                notice the file cannot take goes (its sink)
     */
    StatsPublisher(StatsFile file, int liveSlots, Syscalls syscalls, Notices notices) {
        this.file = file;
        this.liveSlots = liveSlots;
        this.syscalls = syscalls;
        this.notices = notices;
        this.sink = notices.sink();
    }

    /** Posts a notice for viewers; it reaches the file on the next tick. */
    void post(AgentNotice notice) {
        if (stopped || noticesFull) {
            sink.unpublished(notice);
        } else {
            pending.add(notice);
        }
    }

    /** A virtual thread that ended, with its final counts: the next tick adds it to its group. */
    void virtualEnded(String name, EventList events, CounterSnapshot counts) {
        if (!stopped) {
            virtualEnded.add(new EndedVirtual(name, events, counts, 0));
        }
    }

    /** {@code members} ended virtual threads of {@code group}, their final counts summed: the next tick adds them. */
    void virtualFolded(String group, EventList events, CounterSnapshot counts, int members) {
        if (!stopped) {
            virtualEnded.add(new EndedVirtual(group, events, counts, members));
        }
    }

    /** The virtual groups with members running now; those not among them have none. */
    void virtualRunning(List<RunningVirtualGroup> groups) {
        virtualRunning = groups;
    }

    /** Whether a notice posted now reaches viewers through the file. */
    boolean publishesNotices() {
        return !stopped && !noticesFull;
    }

    /**
     * Publishes one tick: the threads that finished since the last one get their final counts, the live ones
     * their counts so far (a thread new to the file first gets its columns and a live slot), then the heartbeat.
     */
    void tick(List<TrackedThread> live, List<TrackedThread> finished, long epochMillis) {
        long startNanos = System.nanoTime();
        try {
            if (!writable()) {
                return;
            }
            for (AgentNotice notice = pending.poll(); notice != null; notice = pending.poll()) {
                if (!file.notice(notice)) {
                    noticesFull = true;
                    sink.unpublished(notice);
                }
            }
            // Of more threads ended than the ring holds, the first go to the aggregate at once: the ring would
            // overwrite their records before this tick ends.
            int beyondRing = counted(finished) - file.finishedSlots();
            for (TrackedThread t : finished) {
                if (t.columns == null) {
                    admit(t, false); // it ended before a tick published it
                }
                if (t.isCounted()) {
                    if (beyondRing-- > 0) {
                        file.finishIntoAggregate(t.slot, t);
                    } else {
                        file.finish(t.slot, t, !t.hasEnded());
                    }
                }
            }
            for (TrackedThread t : live) {
                if (t.columns == null) {
                    admit(t, true);
                }
                if (t.slot >= 0) {
                    file.publish(t.slot, t);
                }
            }
            for (EndedVirtual v = virtualEnded.poll(); v != null; v = virtualEnded.poll()) {
                addVirtual(v);
            }
            for (RunningVirtualGroup g : virtualRunning) {
                if (!file.virtualRunning(g.group(), g.members(), g.counts(), columns(g.events()))) {
                    groupsFull();
                }
            }
            file.publishVirtualGroups(startNanos);
            file.sampled(startNanos, epochMillis);
            MappedFaults.surface();
        } catch (InternalError | RuntimeException e) {
            writeFailed(e);
        }
    }

    /**
     * Marks the file closed, saying {@code why}, the last write (a damaged file is left as it is), and lets go of its
     * mapping.
     */
    void close(StatsClosing why) {
        try {
            if (!writable()) {
                return;
            }
            for (AgentNotice notice = pending.poll(); notice != null; notice = pending.poll()) {
                if (!file.notice(notice)) {
                    sink.unpublished(notice);
                }
            }
            try {
                file.close(why);
            } catch (IOException | UncheckedIOException e) {
                notices.sayOnce(AgentNotice.failure("closing the stats file " + file.path() + " failed", e));
            }
            MappedFaults.surface();
        } catch (InternalError | RuntimeException e) {
            writeFailed(e);
        } finally {
            stopped = true;
            file.release(syscalls);
        }
    }

    /**
     * A fault of the mapping that was thrown after the writes that took it, outside {@link #tick}: publishing
     * stops as for a fault caught there. Returns false when it cannot be this file's: nothing was written since
     * publishing stopped.
     */
    boolean faulted(InternalError fault) {
        if (stopped) {
            return false;
        }
        String damage = file.damage();
        stop(damage != null ? damage : "a write to it faulted (" + fault.getMessage() + ")");
        return true;
    }

    /**
     * Whether to write now: not once publishing stopped, nor to a file found damaged, which stops it. Each write has a
     * try of its own rather than its writes handed here as a lambda: linking one costs the sampler about a millisecond
     * of CPU once per JVM.
     */
    private boolean writable() {
        if (stopped) {
            return false;
        }
        String damage = file.damage();
        if (damage != null) {
            stop(damage);
            return false;
        }
        return true;
    }

    /** A write that threw: a fault of the mapping, or anything else, stops publishing. */
    private void writeFailed(Throwable e) {
        if (e instanceof InternalError) {
            faulted((InternalError) e);
        } else {
            stop("writing it failed: " + e);
        }
    }

    /** An ended virtual thread into its group, by its name with the numeric suffix stripped ({@code vt-17}: vt). */
    private void addVirtual(EndedVirtual v) {
        boolean added = v.folded() == 0
                ? file.virtualEnded(ThreadGroupName.of(v.name()), v.counts(), columns(v.events()))
                : file.virtualFolded(v.name(), v.folded(), v.counts(), columns(v.events()));
        if (!added) {
            groupsFull();
        }
    }

    private static int counted(List<TrackedThread> threads) {
        int counted = 0;
        for (TrackedThread t : threads) {
            if (t.isCounted()) {
                counted++;
            }
        }
        return counted;
    }

    /** The file's column of each event, shared by the threads of one list: nothing writes into it. */
    private int[] columns(EventList list) {
        if (list != columnsOf) {
            List<EventSpec> events = list.events();
            int[] columns = new int[events.size()];
            for (int e = 0; e < events.size(); e++) {
                columns[e] = file.eventIndex(events.get(e).name());
            }
            lastColumns = columns;
            columnsOf = list;
        }
        return lastColumns;
    }

    private void groupsFull() {
        if (!virtualGroupsFull) {
            virtualGroupsFull = true;
            notices.sayOnce(AgentNotice.info("the stats file shows " + StatsLayout.VIRTUAL_GROUPS + " groups of"
                    + " virtual threads: those of other groups are recorded but not shown live"));
        }
    }

    private void admit(TrackedThread t, boolean live) {
        if (!t.isCounted()) {
            // no counts to show, live or final: the file counts it, its record says why
            file.threadNotCounted();
            t.slot = -1;
            t.columns = new int[0];
            return;
        }
        t.columns = columns(t.events);
        for (EventFailure failure : t.counters.unsupported()) {
            file.eventRefused(file.eventIndex(failure.event().name()), failure.reason());
        }
        for (Map.Entry<String, String> source : t.counters.sources().entrySet()) {
            file.eventSource(file.eventIndex(source.getKey()), source.getValue());
        }
        t.slot = live ? claimSlot(t) : -1;
    }

    /** A live slot for the thread, -1 when the file cannot show it live: said once. */
    private int claimSlot(TrackedThread t) {
        try {
            int slot = file.claimSlot(t);
            if (slot < 0) {
                notices.sayOnce(AgentNotice.info("the stats file is full (" + liveSlots + " live threads): threads"
                        + " beyond that are recorded but not shown live"));
            }
            return slot;
        } catch (IOException e) {
            notices.sayOnce(AgentNotice.info("the stats file cannot grow to show more than " + file.liveSlots()
                    + " live threads (" + e.getMessage() + "): threads beyond that are recorded but not shown live"));
            return -1;
        }
    }

    private void stop(String damage) {
        stopped = true;
        for (AgentNotice notice = pending.poll(); notice != null; notice = pending.poll()) {
            sink.unpublished(notice);
        }
        notices.sayOnce(AgentNotice.info("stopped publishing to the stats file " + file.path() + ": " + damage
                + "; counting and recording go on"));
        abandon();
    }

    private void abandon() {
        try {
            file.abandon();
        } catch (IOException e) {
            // closing a descriptor that only served fstat: nothing to lose
        }
    }
}
