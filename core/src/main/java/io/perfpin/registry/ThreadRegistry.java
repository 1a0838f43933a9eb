package io.perfpin.registry;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.EventFailure;
import io.perfpin.counter.KeptSwitchedOn;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.cpu.CpuAssignment;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.report.JsonLinesFile;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsFile;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The threads perfpin pins and counts in this JVM, and the one sampler thread that publishes them.
 *
 * <p>A thread enrols itself ({@link #enrolCurrentThread}) when it starts running, so it is counted from its
 * first instruction; this opens its counters on that thread, once. Everything else happens on the sampler:
 * each tick reads every thread's counters (one read(2) per kernel group, and the thread's /proc files for the
 * {@code sched} events the kernel does not permit, see {@link ThreadCounters}), publishes them to the stats file
 * and the JSON-lines recording, and finalises threads that ended: their last counts become final records,
 * their descriptors close and their CPU reservations are freed. The sampler is woken early when many threads
 * have ended, so thread churn cannot pile up descriptors.
 *
 * <p>perfpin holds its descriptors within a budget, a share of those the process had free when the registry
 * started ({@link RegistryConfig#descriptors()}): a thread whose counters would go beyond it, or whose
 * counters the kernel cannot open for want of descriptors, is enrolled not counted. It holds no descriptor,
 * its final record says why for each event, the stats file counts it, and it shows in no live slot.
 *
 * <p>Failures never reach the application: they are reported through the warning sink, once each.
 */
public final class ThreadRegistry implements AutoCloseable {
    /** Ended threads pending before the sampler is woken early to close their descriptors. */
    private static final int WAKE_AFTER_ENDED = 64;

    private final Syscalls syscalls;
    private final long pid = ProcessHandle.current().pid();
    private final ThreadAffinity affinity;
    private final RegistryConfig config;
    /** Null when no stats file is published. */
    private final StatsPublisher stats;
    private final JsonLinesFile recording;
    private final NoticeSink notices;
    private final DescriptorBudget descriptors;
    private final Set<String> said = ConcurrentHashMap.newKeySet();
    /** What the kernel refuses every thread, so that enrolling one tries it no more. */
    private final RefusedEvents refused = new RefusedEvents();
    /** Keeps the kernel's code for the default software events switched on: enrolment stays cheap. */
    private final KeptSwitchedOn switchedOn;
    private final ConcurrentLinkedQueue<TrackedThread> admitted = new ConcurrentLinkedQueue<>();
    private final Map<Thread, TrackedThread> enrolled = new ConcurrentHashMap<>();
    private final AtomicInteger endedPending = new AtomicInteger();
    private final List<TrackedThread> live = new ArrayList<>();
    /** The threads the current tick finalised, to publish after everything else it does. */
    private final List<TrackedThread> finishedThisTick = new ArrayList<>();
    private final Thread sampler;
    /** Every mask perfpin pinned a thread to: a new thread found with one of them inherited it. */
    private final Set<CpuSet> pinnedMasks = ConcurrentHashMap.newKeySet();
    /** The affinity of the process when counting began: what an unpinned thread runs with. */
    private final CpuSet processCpus;
    private volatile CpuTopology topology;
    private volatile CpuReservations reservations;
    private volatile boolean closing;
    private volatile TickListener tickListener;

    /** Work that shares the sampler's tick: it runs after the threads are published, before the flush. */
    public interface TickListener {
        /**
         * @param record     writes one JSON line to the recording (nothing when there is none)
         * @param finalPass  true once, at close, after every thread's final record
         */
        void afterTick(long epochMillis, boolean finalPass, Consumer<String> record);
    }

    private ThreadRegistry(Syscalls syscalls, RegistryConfig config, DescriptorBudget descriptors, StatsFile stats,
                           JsonLinesFile recording, NoticeSink notices) {
        this.syscalls = syscalls;
        this.affinity = new ThreadAffinity(syscalls);
        this.config = config;
        this.descriptors = descriptors;
        this.notices = notices;
        this.stats = stats == null ? null : new StatsPublisher(stats, config.liveSlots(), syscalls, this::sayOnce,
                notices);
        this.recording = recording;
        this.processCpus = affinity.get(0);
        this.switchedOn = KeptSwitchedOn.open(syscalls, config.defaultEvents().events(), descriptors);
        this.sampler = new Thread(this::sample, "perfpin-sampler");
        this.sampler.setDaemon(true);
    }

    /** Creates the stats file and recording the config asks for, and starts the sampler thread. */
    public static ThreadRegistry start(Syscalls syscalls, RegistryConfig config, NoticeSink notices)
            throws IOException {
        long pid = ProcessHandle.current().pid();
        // Counted before perfpin opens anything: what the application had free is what it shares.
        DescriptorBudget descriptors = DescriptorBudget.forThisProcess(config.descriptors());
        // The stats file holds no descriptor once mapped; the recording holds one while it is open.
        StatsFile stats = null;
        if (config.statsFile() != null) {
            try {
                stats = StatsFile.create(config.statsFile(), pid, System.currentTimeMillis(), config.intervalNanos(),
                        config.eventCapacity(), config.liveSlots(), config.finishedSlots(), config.agentOptions());
            } catch (IOException e) {
                throw new IOException("cannot write the stats file: " + e.getMessage(), e);
            }
            stats.descriptorBudget(descriptors.budget());
        }
        JsonLinesFile recording = null;
        if (config.jsonLines() != null) {
            try {
                if (!descriptors.take(1)) {
                    throw new IOException("no file descriptor is left for it: " + descriptors.reason());
                }
                recording = JsonLinesFile.create(config.jsonLines());
            } catch (IOException e) {
                if (stats != null) {
                    try {
                        stats.close(); // marked closed: no viewer waits for an agent that never started
                    } catch (IOException alsoFailed) {
                        e.addSuppressed(alsoFailed);
                    }
                    stats.release(syscalls);
                }
                throw new IOException("cannot write the recording: " + e.getMessage(), e);
            }
        }
        ThreadRegistry registry = new ThreadRegistry(syscalls, config, descriptors, stats, recording, notices);
        registry.sampler.start();
        return registry;
    }

    public RegistryConfig config() {
        return config;
    }

    /** The file descriptors perfpin may hold in this process: whatever else it opens there takes from them. */
    public DescriptorBudget descriptors() {
        return descriptors;
    }

    /** Sets the one listener that runs on every tick of the sampler. */
    public void onTick(TickListener listener) {
        tickListener = listener;
    }

    /**
     * Pins (when {@code placement} is not null) and counts the calling thread from now on.
     *
     * @param events null for the configured default events
     * @return false when this thread is already enrolled (or the registry is closing)
     */
    public boolean enrolCurrentThread(EventList events, Placement placement) {
        return enrolCurrentThread(events, placement, false);
    }

    /**
     * As {@link #enrolCurrentThread(EventList, Placement)}, for a thread that {@link #threadStarting} found
     * running with a pin it inherited and keeps: its records say so.
     */
    public boolean enrolCurrentThread(EventList events, Placement placement, boolean inheritedPin) {
        return enrol(Thread.currentThread(), syscalls.gettid(), events, placement, inheritedPin);
    }

    /**
     * Pins and counts a running thread by its TID, as after a dynamic attach, where the thread dump maps each
     * Java thread to its TID. It is counted from now on.
     */
    public boolean enrol(Thread thread, int tid, EventList events, Placement placement) {
        return enrol(thread, tid, events, placement, false);
    }

    private boolean enrol(Thread thread, int tid, EventList events, Placement placement, boolean inheritedPin) {
        if (closing || enrolled.containsKey(thread)) {
            return false;
        }
        // Pinned before its counters open, so moving it onto its CPU is not counted as a migration.
        Pinning pinning = placement == null ? null : pin(tid, thread.getName(), placement);
        EventList counted = events != null ? events : config.defaultEvents();
        long enrolledNanos = System.nanoTime();
        ThreadCounters counters = ThreadCounters.open(syscalls, pid, tid, counted.events(), refused, descriptors);
        if (counters.notCounted() != null) {
            sayOnce(AgentNotice.refused("not counting threads while no file descriptor is left for them: "
                    + counters.notCounted()));
        } else {
            for (EventFailure failure : counters.unsupported()) {
                sayOnce(AgentNotice.info("not counting " + failure.event().name() + ": " + failure.reason()));
            }
            if (!counters.sources().isEmpty()) {
                sayOnce(AgentNotice.info("counting " + String.join(", ", counters.sources().keySet())
                        + " from /proc/<pid>/task/<tid>, the scheduler's own counts (exact): the kernel does not permit"
                        + " these events to perfpin here (perf_event_paranoid)"));
            }
        }
        TrackedThread tracked = new TrackedThread(thread, tid, counted, counters, pinning, inheritedPin, enrolledNanos);
        // Read now, while the thread surely lives: a short one may be gone by the sampler's next tick.
        tracked.cpus = pinning != null ? pinning.assignment.cpus().toString() : cpusOf(tid);
        if (enrolled.putIfAbsent(thread, tracked) != null) {
            counters.close();
            unpin(tracked);
            return false;
        }
        admitted.add(tracked);
        return true;
    }

    /**
     * Pins a thread that is counted but not pinned, as when an annotated task starts on a thread that a name
     * rule already counts; nothing happens to a thread not counted or already pinned.
     */
    public void pin(Thread thread, Placement placement) {
        TrackedThread tracked = enrolled.get(thread);
        if (tracked != null && tracked.pinning == null) {
            tracked.pinned(pin(tracked.tid, tracked.name, placement));
            if (tracked.pinning != null) {
                tracked.cpus = tracked.pinning.assignment.cpus().toString();
            }
        }
    }

    private String cpusOf(int tid) {
        try {
            return affinity.get(tid).toString();
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** Null, and reported once, when the placement cannot be had. */
    private Pinning pin(int tid, String name, Placement placement) {
        CpuAssignment assignment = null;
        try {
            CpuSet original = affinity.get(tid);
            assignment = placement.assign(topology(), reservations(), tid, name);
            affinity.set(tid, assignment.cpus());
            pinnedMasks.add(assignment.cpus());
            return new Pinning(original, assignment);
        } catch (IOException | RuntimeException e) {
            sayOnce(AgentNotice.refused("cannot pin thread '" + name + "' (" + placement + "): " + e.getMessage()));
            if (assignment != null) {
                assignment.close();
            }
            return null;
        }
    }

    /** Gives a thread back the affinity it had before perfpin pinned it, and frees its reservation. */
    private void unpin(TrackedThread tracked) {
        Pinning pinning = tracked.pinning;
        if (pinning == null) {
            return;
        }
        tracked.pinning = null;
        try {
            if (tracked.thread.isAlive()) {
                affinity.set(tracked.tid, pinning.originalCpus);
            }
        } catch (RuntimeException e) {
            sayOnce(AgentNotice.refused("cannot restore the affinity of '" + tracked.name + "': " + e.getMessage()));
        } finally {
            pinning.assignment.close();
        }
    }

    /**
     * Called by every thread as it starts running, before any enrolment. Linux gives a new thread its
     * creator's affinity, so a thread started by a pinned thread would silently run pinned too: unless
     * {@code inheritPin} (a rule says so), it gets the process's affinity back.
     *
     * @return true when the thread runs with a pin it inherited (and keeps)
     */
    public boolean threadStarting(boolean inheritPin) {
        if (pinnedMasks.isEmpty()) {
            return false; // nothing pinned yet, so nothing to inherit: no system call on this path
        }
        int tid = syscalls.gettid();
        CpuSet mask = affinity.get(tid);
        if (mask.equals(processCpus) || !pinnedMasks.contains(mask)) {
            return false;
        }
        if (inheritPin) {
            return true;
        }
        try {
            affinity.set(tid, processCpus);
        } catch (RuntimeException e) {
            sayOnce(AgentNotice.info("cannot reset the inherited pin of '" + Thread.currentThread().getName()
                    + "': " + e.getMessage()));
        }
        return false;
    }

    /** Whether this thread is counted now. */
    public boolean isEnrolled(Thread thread) {
        return enrolled.containsKey(thread);
    }

    /** Called by a thread leaving its run(): its final counts are taken on the sampler's next tick. */
    public void threadEnded(Thread thread) {
        TrackedThread tracked = enrolled.get(thread);
        if (tracked != null && !tracked.ended) {
            tracked.counters.threadEnding();
            markEnded(tracked);
        }
    }

    private void markEnded(TrackedThread tracked) {
        tracked.ended = true;
        if (endedPending.incrementAndGet() >= WAKE_AFTER_ENDED) {
            LockSupport.unpark(sampler);
        }
    }

    /**
     * Stops counting a thread that goes on running, as when an annotated task returns to its pool: its counts
     * freeze now, the pin perfpin gave it is undone and its reservation freed, and the sampler writes its final
     * record on its next tick. The thread may be enrolled again afterwards.
     */
    public void leave(Thread thread) {
        TrackedThread tracked = enrolled.remove(thread);
        if (tracked == null) {
            return;
        }
        tracked.counters.disable();
        unpin(tracked);
        markEnded(tracked);
    }

    private void sample() {
        try {
            topology(); // read here, so the first thread pinned does not pay for it in its own counts
        } catch (RuntimeException e) {
            sayOnce(AgentNotice.info("cannot read the CPU topology: " + e.getMessage()));
        }
        while (!closing) {
            try {
                sampleUntilClosing();
            } catch (InternalError fault) {
                // Thrown later than the write that faulted (see MappedFaults): the sampler goes on all the same.
                faulted(fault);
            }
        }
    }

    private void sampleUntilClosing() {
        while (!closing) {
            LockSupport.parkNanos(this, config.intervalNanos());
            if (closing) {
                break;
            }
            tick(false);
        }
    }

    /**
     * One sampling pass; {@code finalPass} finalises every thread, as at exit or detach. The stats file comes
     * last: whatever happens to it, each thread's counts, records and descriptors have been dealt with.
     */
    private synchronized void tick(boolean finalPass) {
        long now = System.currentTimeMillis();
        finishedThisTick.clear();
        try {
            admit();
            endedPending.set(0);
            for (int i = live.size() - 1; i >= 0; i--) {
                TrackedThread t = live.get(i);
                boolean ended = finalPass || t.hasEnded();
                t.read();
                if (ended) {
                    live.set(i, live.get(live.size() - 1));
                    live.remove(live.size() - 1);
                    finishedThisTick.add(t);
                    finish(t, now);
                } else if (recording != null && t.isCounted()) {
                    // a thread not counted has nothing to record until its final record
                    recording.write(ThreadRecords.toJson(ThreadRecords.SAMPLE, now, report(t)));
                }
            }
            TickListener listener = tickListener;
            if (listener != null) {
                listener.afterTick(now, finalPass, this::record);
            }
            if (recording != null) {
                recording.flush();
            }
        } catch (IOException | RuntimeException e) {
            sayOnce(AgentNotice.refused("sampling failed: " + e));
        }
        if (stats != null) {
            stats.tick(live, finishedThisTick, now);
        }
    }

    private void admit() {
        for (TrackedThread t = admitted.poll(); t != null; t = admitted.poll()) {
            live.add(t);
        }
    }

    private void finish(TrackedThread t, long now) throws IOException {
        try {
            if (recording != null) {
                recording.write(ThreadRecords.toJson(ThreadRecords.THREAD, now, report(t)));
            }
        } finally {
            t.counters.close();
            unpin(t);
            enrolled.remove(t.thread, t);
        }
    }

    /** A fault that HotSpot threw after the code that took it had returned; only the stats file is mapped. */
    private void faulted(InternalError fault) {
        if (stats == null || !stats.faulted(fault)) {
            sayOnce(AgentNotice.refused("sampling failed: " + fault));
        }
    }

    private void record(String jsonLine) {
        if (recording != null) {
            try {
                recording.write(jsonLine);
            } catch (IOException e) {
                sayOnce(AgentNotice.refused("recording failed: " + e.getMessage()));
            }
        }
    }

    private ThreadReport report(TrackedThread t) {
        return ThreadReport.of(t.name, t.tid, t.javaId, t.cpus, t.events, t.counts, t.counters.unsupported(),
                t.readToNanos() - t.enrolledNanos).withPin(t.pinSource()).withSources(t.counters.sources())
                .withState(t.hasEnded() ? ThreadState.ENDED : ThreadState.RUNNING);
    }

    /**
     * Stops counting: every thread's final record is written, its descriptors closed, its reservation freed,
     * and a thread perfpin pinned gets back the affinity it had before. The stats file is marked closed.
     */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        LockSupport.unpark(sampler);
        try {
            sampler.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            tick(true);
            if (stats != null) {
                stats.close();
            }
        } catch (InternalError fault) {
            faulted(fault);
        }
        switchedOn.close();
        try {
            if (recording != null) {
                try {
                    recording.close();
                } finally {
                    descriptors.giveBack(1);
                }
            }
        } catch (IOException e) {
            sayOnce(AgentNotice.refused("closing the recording failed: " + e.getMessage()));
        }
    }

    private CpuTopology topology() {
        if (topology == null) {
            topology = CpuTopology.live();
        }
        return topology;
    }

    private CpuReservations reservations() throws IOException {
        if (reservations == null) {
            reservations = CpuReservations.openDefault();
        }
        return reservations;
    }

    /**
     * Says a notice once: to the sink, and to viewers through the stats file. A notice of the agent's own (not the
     * registry's) comes through {@link #post}.
     */
    private void sayOnce(AgentNotice notice) {
        if (said.add(notice.text())) {
            notices.said(notice);
            if (stats != null) {
                stats.post(notice);
            }
        }
    }

    /** Posts a notice that the agent said for viewers of the stats file, when there is one. */
    public void post(AgentNotice notice) {
        if (stats != null) {
            stats.post(notice);
        }
    }

    /** Whether a notice posted now reaches viewers through the stats file. */
    public boolean publishesNotices() {
        return stats != null && stats.publishesNotices();
    }
}
