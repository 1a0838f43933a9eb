package io.perfpin.registry;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.EventFailure;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.stats.AgentNotice;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads enrolled in the registry, from enrolment to their end. Enrolment runs on the thread being enrolled,
 * or on whichever thread enrols a running one by TID, and does only what must happen there, before the thread's
 * first counted instruction: its pin and its counters. The sampler takes each new thread from here, says what it
 * cannot count, and finishes it once it ended: what the enrolling thread never waits for.
 */
final class EnrolledThreads {
    /** Ended threads pending before the sampler is woken early to close their descriptors. */
    private static final int WAKE_AFTER_ENDED = 64;
    /** How long closing waits for enrolments in flight: each takes microseconds, a pin milliseconds. */
    private static final long ENROLMENTS_IN_FLIGHT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int EXPLAINED = 256;
    private static final Object NOT_COUNTED = new Object();

    private final Syscalls syscalls;
    private final long pid = ThisProcess.pid();
    private final EventList defaultEvents;
    private final DescriptorBudget descriptors;
    private final ThreadPins pins;
    private final Notices notices;
    /** What the kernel refuses every thread, so that enrolling one tries it no more. */
    private final RefusedEvents refused = new RefusedEvents();
    private final ConcurrentLinkedQueue<TrackedThread> admitted = new ConcurrentLinkedQueue<>();
    private final Map<Thread, TrackedThread> enrolled = new ConcurrentHashMap<>();
    private final AtomicInteger endedPending = new AtomicInteger();
    /** Enrolments under way: closing waits for them, so that none leaves descriptors open after it. */
    private final AtomicInteger enrolling = new AtomicInteger();
    private volatile boolean closed;
    /** On the sampler only: what {@link #explain} said, by event (or {@link #NOT_COUNTED}) to the reasons. */
    private final Map<Object, Set<Object>> explained = new HashMap<>();

    EnrolledThreads(Syscalls syscalls, EventList defaultEvents, DescriptorBudget descriptors, ThreadPins pins,
                    Notices notices) {
        this.syscalls = syscalls;
        this.defaultEvents = defaultEvents;
        this.descriptors = descriptors;
        this.pins = pins;
        this.notices = notices;
    }

    /**
     * Pins (when {@code placement} is not null) and counts thread {@code tid} from now on.
     *
     * @param events null for the default events
     * @return false when it is enrolled already, or enrolment is closed
     */
    boolean enrol(Thread thread, int tid, EventList events, Placement placement, boolean inheritedPin) {
        enrolling.incrementAndGet();
        try {
            if (closed || enrolled.containsKey(thread)) {
                return false;
            }
            // Pinned before its counters open, so moving it onto its CPU is not counted as a migration.
            ThreadPins.Pin pinning = placement == null ? null : pin(thread, tid, thread.getName(), placement);
            EventList counted = events != null ? events : defaultEvents;
            long enrolledNanos = System.nanoTime();
            ThreadCounters counters = null;
            TrackedThread tracked;
            try {
                counters = ThreadCounters.open(syscalls, pid, tid, counted.events(), refused, descriptors);
                tracked = new TrackedThread(thread, tid, counted, counters, pinning, inheritedPin, enrolledNanos);
            } catch (RuntimeException | Error e) {
                // on the application's thread: said, not thrown, and nothing left open or pinned for nobody to undo
                if (counters != null) {
                    counters.close();
                }
                pins.restore(pinning);
                notices.sayOnce(Isolated.failed("counting a thread", e));
                return false;
            }
            // Read now, while the thread surely lives: a short one may be gone by the sampler's next tick.
            tracked.cpus = pinning != null ? pinning.cpus().toString() : pins.cpusOf(tid);
            if (enrolled.putIfAbsent(thread, tracked) != null) {
                tracked.counters.close();
                unpin(tracked);
                return false;
            }
            admitted.add(tracked);
            return true;
        } finally {
            enrolling.decrementAndGet();
        }
    }

    /** Pins a thread that is counted but not pinned; nothing happens to a thread not counted or already pinned. */
    void pin(Thread thread, Placement placement) {
        TrackedThread tracked = enrolled.get(thread);
        if (tracked != null && tracked.pinning == null) {
            tracked.pinned(pin(thread, tracked.tid, tracked.name, placement));
            if (tracked.pinning != null) {
                tracked.cpus = tracked.pinning.cpus().toString();
            }
        }
    }

    /**
     * Pins a thread, and says where when its placement chose the CPUs; null, and said once, when the placement
     * cannot be had: the thread runs unpinned.
     */
    private ThreadPins.Pin pin(Thread thread, int tid, String name, Placement placement) {
        try {
            ThreadPins.Pin pin = pins.pin(thread, tid, name, placement);
            String placed = ThreadPins.placed("pin=" + placement, List.of(pin));
            if (!placed.isEmpty()) {
                notices.sayOnce(AgentNotice.info(placed));
            }
            return pin;
        } catch (IOException | RuntimeException e) {
            notices.sayOnce(AgentNotice.refused("cannot pin thread '" + name + "' (" + placement + "): "
                    + e.getMessage()));
            return null;
        }
    }

    /** Gives a thread back the affinity it had before perfpin pinned it, and frees its reservation. */
    private void unpin(TrackedThread tracked) {
        ThreadPins.Pin pinning = tracked.pinning;
        tracked.pinning = null;
        pins.restore(pinning);
    }

    boolean isEnrolled(Thread thread) {
        return enrolled.containsKey(thread);
    }

    /**
     * On the thread itself as it leaves its run(): its final counts are taken on the sampler's next tick.
     *
     * @return true when so many threads ended that the sampler should finish them now
     */
    boolean threadEnded(Thread thread) {
        TrackedThread tracked = enrolled.get(thread);
        if (tracked == null || tracked.ended) {
            return false;
        }
        tracked.counters.threadEnding();
        return markEnded(tracked);
    }

    /**
     * Stops counting a thread that goes on running: its counts freeze now, its pin is undone, and the sampler
     * writes its final record. It may be enrolled again afterwards.
     *
     * @return as {@link #threadEnded}
     */
    boolean leave(Thread thread) {
        TrackedThread tracked = enrolled.remove(thread);
        if (tracked == null) {
            return false;
        }
        tracked.counters.disable();
        unpin(tracked);
        return markEnded(tracked);
    }

    private boolean markEnded(TrackedThread tracked) {
        tracked.ended = true;
        return endedPending.incrementAndGet() >= WAKE_AFTER_ENDED;
    }

    /**
     * On the sampler: moves the threads enrolled since the last call into {@code live}, saying once what each
     * cannot count, which the enrolling thread was spared.
     */
    void admitInto(List<TrackedThread> live) {
        endedPending.set(0);
        for (TrackedThread t = admitted.poll(); t != null; t = admitted.poll()) {
            live.add(t);
            TrackedThread admittedNow = t;
            Isolated.run(notices, "saying what a thread cannot count", () -> explain(admittedNow.counters));
        }
    }

    private void explain(ThreadCounters counters) {
        if (counters.notCounted() != null) {
            if (firstTime(NOT_COUNTED, counters.notCounted())) {
                notices.sayOnce(AgentNotice.refused("not counting threads while no file descriptor is left for them: "
                        + counters.notCounted()));
            }
            return;
        }
        for (EventFailure failure : counters.unsupported()) {
            if (firstTime(failure.event().name(), failure.reason())) {
                notices.sayOnce(AgentNotice.notCounted(failure.event().name(), failure.reason()));
            }
        }
        if (!counters.sources().isEmpty() && firstTime(ThreadCounters.PROC, counters.sources().keySet())) {
            notices.sayOnce(AgentNotice.info("counting " + String.join(", ", counters.sources().keySet())
                    + " from /proc/<pid>/task/<tid>, the scheduler's own counts (exact): the kernel does not permit"
                    + " these events to perfpin here (perf_event_paranoid)"));
        }
    }

    /**
     * Whether {@code why} is news for {@code what}: the text of a notice is built only then, not for every thread that
     * cannot count what threads before it could not. Forgets nothing up to {@value #EXPLAINED} reasons; beyond them
     * (reasons that name a thread) each is said through {@link Notices}, which says a text once all the same.
     */
    private boolean firstTime(Object what, Object why) {
        if (explained.size() >= EXPLAINED) {
            return true;
        }
        return explained.computeIfAbsent(what, w -> new HashSet<>()).add(why);
    }

    /**
     * On the sampler, once the thread's final counts are read: its descriptors close, its pin is undone, each
     * whether or not the other could be.
     */
    void finished(TrackedThread t) {
        try {
            Isolated.run(notices, "closing a thread's counters", t.counters::close);
            Isolated.run(notices, "giving a thread back its CPUs", () -> unpin(t));
        } finally {
            enrolled.remove(t.thread, t);
        }
    }

    /** Enrols no more threads, and waits for enrolments under way, so that the sampler's last tick has them all. */
    void close() {
        closed = true;
        long deadline = System.nanoTime() + ENROLMENTS_IN_FLIGHT_NANOS;
        while (enrolling.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
    }
}
