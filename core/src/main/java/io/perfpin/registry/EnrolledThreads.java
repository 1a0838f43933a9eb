package io.perfpin.registry;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.EventFailure;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeEnrolment;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.stats.AgentNotice;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads enrolled in the registry, from enrolment to their end. Enrolment runs on the thread being enrolled,
 * or on whichever thread enrols a running one by TID, and does only what must happen there, before the thread's
 * first counted instruction: its pin and its counters. The sampler takes each new thread from here, says what it
 * cannot count, and finishes it once it ended: what the enrolling thread never waits for.
 *
 * <p>With perfpin's C library, threads may be enrolled with no Java on them at all ({@link #enrolInC}): C opens their
 * counters as they start, and the sampler adopts them here, where they join the others.
 */
final class EnrolledThreads {
    /** Ended threads pending before the sampler is woken early to close their descriptors. */
    private static final int WAKE_AFTER_ENDED = 64;
    /** How long closing waits for enrolments in flight: each takes microseconds, a pin milliseconds. */
    private static final long ENROLMENTS_IN_FLIGHT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final int EXPLAINED = 256;
    private static final Object NOT_COUNTED = new Object();
    /**
     * Threads C may count at once, from their start until the sampler is done with them: some hundred bytes each.
     * One that starts while all are taken goes the Java way.
     */
    private static final int SLOTS = 4096;
    /** How many threads enrolled in C the sampler takes in per call. */
    private static final int ADOPTED_AT_ONCE = 256;

    private final Syscalls syscalls;
    private final long pid = ThisProcess.pid();
    private final EventList defaultEvents;
    private final DescriptorBudget descriptors;
    private final ThreadPins pins;
    private final Notices notices;
    /** What the kernel refuses every thread, so that enrolling one tries it no more. */
    private final RefusedEvents refused = new RefusedEvents();

    private final PinRefusals pinRefusals;

    private final ConcurrentLinkedQueue<TrackedThread> admitted = new ConcurrentLinkedQueue<>();
    private final ThreadMap<TrackedThread> enrolled = new ThreadMap<>();
    private final AtomicInteger endedPending = new AtomicInteger();
    /** Enrolments under way: closing waits for them, so that none leaves descriptors open after it. */
    private final AtomicInteger enrolling = new AtomicInteger();

    private volatile boolean closed;
    /** Whether C enrols threads: the sampler then adopts them. */
    private volatile boolean inC;
    /** The descriptor table's mark, as the sampler last set it. */
    private int tableMark;
    /** The sampler that a thread at the mark wakes; null until the sampler is made. */
    private volatile Thread tableSampler;
    /**
     * The mark for the threads Java enrols, as C keeps its own: {@link Integer#MAX_VALUE} before the sampler sets it,
     * and from the first thread that reaches it until the sampler's next look sets it again.
     */
    private final AtomicInteger javaTableMark = new AtomicInteger(Integer.MAX_VALUE);
    /** The descriptor of the thread Java enrolled that reached the mark, or -1; taken by {@link #tableReached}. */
    private final AtomicInteger javaTableReached = new AtomicInteger(-1);
    /**
     * Pins of threads C enrolled, set by an annotated task before the sampler took them in: each goes to its thread
     * as it is taken in, or, when it was taken in meanwhile, at once. Whoever removes one hands it on.
     */
    private final ThreadMap<ThreadPins.Pin> pinnedBeforeAdoption = new ThreadMap<>();
    /**
     * The CPUs of every thread C enrolled, as it started: those of the thread that started C's enrolment, since C
     * hands a thread that starts with others to Java.
     */
    private volatile String cpusInC = "";
    /** On the sampler only: the threads C enrolled, and their slot, TID, state, error and the slot's generation. */
    private final Thread[] adoptedThreads = new Thread[ADOPTED_AT_ONCE];

    private final int[] adoptedInfo = new int[ADOPTED_AT_ONCE * NativeEnrolment.INFO];
    /** On the sampler only: what {@link #explain} said, by event (or {@link #NOT_COUNTED}) to the reasons. */
    private final Map<Object, Set<Object>> explained = new HashMap<>();

    EnrolledThreads(
            Syscalls syscalls,
            EventList defaultEvents,
            DescriptorBudget descriptors,
            ThreadPins pins,
            Notices notices) {
        this.syscalls = syscalls;
        this.defaultEvents = defaultEvents;
        this.descriptors = descriptors;
        this.pins = pins;
        this.notices = notices;
        this.pinRefusals = new PinRefusals(notices);
    }

    /**
     * Pins (when {@code placement} is not null) and counts thread {@code tid} from now on.
     *
     * @param events null for the default events
     * @return false when it is enrolled already, or enrolment is closed
     */
    boolean enrol(Thread thread, int tid, EventList events, Placement placement, boolean inheritedPin) {
        return enrol(thread, tid, events, placement, inheritedPin, null);
    }

    /**
     * Takes in the thread of {@code ahead} with the counters it opened (the default events), as enrolled when they
     * opened.
     *
     * @return false when they were taken or closed already, or enrolment is closed
     */
    boolean enrol(CountedAhead ahead) {
        return enrol(ahead.thread(), ahead.tid(), null, null, false, ahead);
    }

    /** With {@code ahead}'s counters where it is not null; with counters opened now otherwise. */
    private boolean enrol(
            Thread thread, int tid, EventList events, Placement placement, boolean inheritedPin, CountedAhead ahead) {
        enrolling.incrementAndGet();
        try {
            if (closed || isEnrolled(thread)) {
                return false;
            }
            // Pinned before its counters open, so moving it onto its CPU is not counted as a migration.
            ThreadPins.Pin pinning = placement == null ? null : pin(thread, tid, thread.getName(), placement);
            EventList counted = events != null ? events : defaultEvents;
            long enrolledNanos = ahead != null ? ahead.enrolledNanos() : System.nanoTime();
            ThreadCounters counters = null;
            TrackedThread tracked;
            try {
                counters = ahead != null
                        ? ahead.take()
                        : ThreadCounters.open(syscalls, pid, tid, counted.events(), refused, descriptors);
                if (counters == null) {
                    return false; // ahead's, taken or closed already
                }
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
            reachedTableMark(counters.highestDescriptor());
            return true;
        } finally {
            enrolling.decrementAndGet();
        }
    }

    /**
     * Has perfpin's C library count the threads that {@code hooks.decide} says to with the default events, from their
     * first instruction and with no Java on them ({@link NativeEnrolment}). Only with the JNI backend on the kernel's
     * own PMU, and only when
     * the kernel counts each of those events for the calling thread in one group: a thread C counts has no /proc
     * values and no second group, so where either would be needed every thread goes the Java way, as it did.
     *
     * @return whether C enrols threads from now on
     */
    boolean enrolInC(Class<?> hooks) {
        // C opens counters with its own system calls, which a simulated PMU (tests only) would not see.
        if (syscalls.backend() != Backend.JNI || closed || syscalls.simulatedPmu() != null) {
            return false;
        }
        List<EventSpec> events = defaultEvents.events();
        long[] attrs = CounterGroup.slotAttrs(syscalls, events);
        if (attrs == null) {
            return false;
        }
        try (CounterGroup probe = CounterGroup.open(syscalls, 0, events, new RefusedEvents(), descriptors)) {
            if (probe.notCounted() != null || !probe.unsupported().isEmpty() || probe.kernelGroups() != 1) {
                return false;
            }
        }
        cpusInC = pins.cpusOf(syscalls.gettid());
        int rc = NativeEnrolment.start(syscalls, hooks, attrs, descriptors.sharedCount(), descriptors.budget(), SLOTS);
        inC = rc == 0;
        if (inC) {
            armTable();
        } else if (rc == -Errno.EBUSY) {
            notices.sayOnce(AgentNotice.info("starting threads are enrolled in Java, not in the C library: a thread"
                    + " that started before the last detach is still being enrolled there"));
        }
        return inC;
    }

    /**
     * The descriptor table's mark, set by the sampler as it is made and after each look at the table: the first
     * thread whose counters reach {@code mark} wakes {@code sampler}, so that the table grows before a thread that
     * starts meets it full. C keeps the mark for the threads it enrols, from its start on where that comes after; Java
     * keeps it for the others (pinned ones, those of another backend).
     */
    synchronized void tableMark(int mark, Thread sampler) {
        tableMark = mark;
        tableSampler = sampler;
        javaTableMark.set(mark);
        if (inC) {
            armTable();
        }
    }

    /** How many descriptors perfpin's counters hold now, C's and Java's. */
    long descriptorsHeld() {
        return descriptors.held();
    }

    /** The highest descriptor of a thread that reached the table's mark since the last call, or -1. */
    int tableReached() {
        int reached = javaTableReached.getAndSet(-1);
        return inC ? Math.max(reached, NativeEnrolment.tableReached()) : reached;
    }

    /**
     * On the thread Java enrolled, whose counters' highest descriptor is {@code descriptor}: the first to reach the
     * mark takes it away and wakes the sampler, as C's {@code table_check} does for its threads. A read and a compare
     * otherwise.
     */
    private void reachedTableMark(int descriptor) {
        int mark = javaTableMark.get();
        if (descriptor >= mark && javaTableMark.compareAndSet(mark, Integer.MAX_VALUE)) {
            // the higher kept, where the sampler has yet to take one that reached an earlier mark
            int before;
            do {
                before = javaTableReached.get();
            } while (before < descriptor && !javaTableReached.compareAndSet(before, descriptor));
            Thread sampler = tableSampler;
            if (sampler != null) {
                LockSupport.unpark(sampler);
            }
        }
    }

    private synchronized void armTable() {
        if (tableSampler != null && NativeEnrolment.tableMark(tableMark, tableSampler) < 0) {
            notices.sayOnce(AgentNotice.info("the C library cannot wake the sampler (LockSupport.unpark): the"
                    + " descriptor table grows at the sampler's ticks alone, and a thread that starts between them may"
                    + " wait for the kernel to grow it"));
        }
    }

    /**
     * On the sampler: takes in the threads C enrolled since the last call, as {@link #enrol} would have, but for
     * their pin: a rule that pins a thread sends it the Java way.
     */
    private void adoptFromC(List<TrackedThread> live) {
        int n;
        do {
            n = NativeEnrolment.adopt(adoptedThreads, adoptedInfo);
            for (int k = 0; k < n; k++) {
                Thread thread = adoptedThreads[k];
                adoptedThreads[k] = null;
                int at = k * NativeEnrolment.INFO;
                try {
                    adopt(
                            thread,
                            adoptedInfo[at],
                            adoptedInfo[at + 1],
                            adoptedInfo[at + 2],
                            adoptedInfo[at + 3],
                            longAt(adoptedInfo, at + 4),
                            longAt(adoptedInfo, at + 6),
                            live);
                } catch (RuntimeException | Error failure) {
                    notices.sayOnce(AgentNotice.failure(
                            "taking in a thread counted from its start failed",
                            failure,
                            "its counters are closed, and it runs on uncounted; the other threads are counted"));
                }
            }
        } while (n == ADOPTED_AT_ONCE);
    }

    /** The long that {@link NativeEnrolment#adopt} gives as two ints, high then low. */
    private static long longAt(int[] info, int at) {
        return (long) info[at] << 32 | (info[at + 1] & 0xffffffffL);
    }

    private void adopt(
            Thread thread,
            int slot,
            int tid,
            int state,
            int error,
            long openedNanos,
            long generation,
            List<TrackedThread> lives) {
        // The slot is this call's until the thread is live on the sampler: whatever fails before that lets the slot
        // go, or its group would stay open, and the slot taken, for as long as the thread runs. A slot let go of
        // already (its generation moved on) is left alone.
        TrackedThread tracked = null;
        boolean live = false;
        try {
            tracked = enrolAdopted(thread, slot, tid, state, error, openedNanos, generation);
            if (tracked != null) {
                lives.add(tracked);
                live = true;
            }
        } finally {
            if (!live) {
                // out of the registry before its slot goes: a thread that sees its slot gone finds it untracked
                // (pin)
                if (tracked != null) {
                    enrolled.remove(thread, tracked);
                }
                NativeEnrolment.release(slot, generation);
                // a pin its task set before, which no tracked thread will undo: undone now, not at close
                pins.restore(pinnedBeforeAdoption.remove(thread));
            }
        }
        if (live) {
            // counted from here on, whatever these say
            try {
                handPin(tracked);
            } catch (RuntimeException | Error e) {
                notices.sayOnce(Isolated.failed("giving a thread the pin its task asked for", e));
            }
            try {
                explain(tracked.counters);
            } catch (RuntimeException | Error e) {
                notices.sayOnce(Isolated.failed("saying what a thread cannot count", e));
            }
        }
    }

    /**
     * The thread C enrolled, in the registry from now on; null when it is not the sampler's to read: its slot let go
     * of, and the thread enrolled the Java way, or already.
     */
    private TrackedThread enrolAdopted(
            Thread thread, int slot, int tid, int state, int error, long openedNanos, long generation) {
        List<EventSpec> events = defaultEvents.events();
        if (state == NativeEnrolment.FAILED) {
            // The kernel refused this thread an event it gave the thread that started C's enrolment: Java opens what
            // it can, with the reasons, counted from now. Enrolled before its slot goes, which holds no descriptor
            // now: a thread that sees its slot gone finds it tracked (pin).
            enrol(thread, tid, null, null, false);
            NativeEnrolment.release(slot, generation);
            handPinOrRestore(thread);
            return null;
        }
        boolean counted = state != NativeEnrolment.NOT_COUNTED;
        CounterGroup group = counted
                ? CounterGroup.inSlot(syscalls, tid, events, slot, generation, descriptors)
                : CounterGroup.notCountedInSlot(tid, events, error >>> 8, error & 0xff, descriptors);
        ThreadCounters counters = ThreadCounters.of(group, pid);
        TrackedThread tracked = new TrackedThread(thread, tid, defaultEvents, counters, null, false, openedNanos);
        tracked.cpus = cpusInC;
        if (enrolled.putIfAbsent(thread, tracked) != null) {
            counters.close(); // enrolled the Java way before this tick, as a running thread is after an attach
            handPinOrRestore(thread);
            return null;
        }
        if (!counted) {
            // its slot, which holds no descriptor, goes once it is tracked (pin)
            NativeEnrolment.release(slot, generation);
        }
        return tracked;
    }

    /**
     * Gives the pin {@code thread} was given before the sampler took it in, if any, to the thread as enrolled now; or
     * undoes it where the thread is not enrolled: a pin left in {@link #pinnedBeforeAdoption} would keep its CPUs
     * reserved, and the thread on them, until the registry closes.
     */
    private void handPinOrRestore(Thread thread) {
        TrackedThread tracked = enrolled.get(thread);
        if (tracked != null) {
            handPin(tracked);
        } else {
            pins.restore(pinnedBeforeAdoption.remove(thread));
        }
    }

    /** Gives {@code tracked} the pin it was given before the sampler took it in, if any. */
    private void handPin(TrackedThread tracked) {
        give(tracked, pinnedBeforeAdoption.remove(tracked.thread));
    }

    /** Gives {@code tracked} {@code pinning}, unless it has a pin already, when {@code pinning} is undone. */
    private void give(TrackedThread tracked, ThreadPins.Pin pinning) {
        if (pinning == null) {
            return;
        }
        synchronized (tracked) { // against the thread pinning itself meanwhile (pinNow)
            if (tracked.pinning == null) {
                tracked.pinned(pinning);
                tracked.cpus = pinning.cpus().toString();
                return;
            }
        }
        pins.restore(pinning);
    }

    /** Whether C enrolled {@code thread}, the calling thread, as it started: taken in by the sampler or about to be. */
    private boolean enrolledInC(Thread thread) {
        return inC && thread == Thread.currentThread() && NativeEnrolment.enrolledCurrentThread();
    }

    /** Pins a thread that is counted but not pinned; nothing happens to a thread not counted or already pinned. */
    void pin(Thread thread, Placement placement) {
        // counted among the enrolments in flight, which close waits for: no pin is made after the last tick
        enrolling.incrementAndGet();
        try {
            if (!closed) {
                pinNow(thread, placement);
            }
        } finally {
            enrolling.decrementAndGet();
        }
    }

    private void pinNow(Thread thread, Placement placement) {
        TrackedThread tracked = enrolled.get(thread);
        if (tracked == null && enrolledInC(thread)) {
            if (pinnedBeforeAdoption.containsKey(thread)) {
                return; // pinned already: only this thread parks a pin for itself
            }
            // not taken in yet: pinned now, on itself, and the pin handed to it as the sampler takes it in
            int tid = syscalls.gettid();
            ThreadPins.Pin pinning = pin(thread, tid, thread.getName(), placement);
            if (pinning != null && pinnedBeforeAdoption.putIfAbsent(thread, pinning) != null) {
                pins.restore(pinning);
            }
            tracked = enrolled.get(thread);
            if (tracked != null) {
                handPin(tracked); // taken in meanwhile, without it
            } else if (!enrolledInC(thread)) {
                // Its slot let go of meanwhile, and the sampler may have looked in pinnedBeforeAdoption before this
                // pin was put there. The sampler tracks a thread it takes in before it lets the slot go, and looks
                // there after: a pin it did not see is seen here, given to the thread as tracked now, or undone.
                ThreadPins.Pin parked = pinnedBeforeAdoption.remove(thread);
                TrackedThread now = enrolled.get(thread);
                if (now != null) {
                    give(now, parked);
                } else {
                    pins.restore(parked);
                }
            }
            return;
        }
        if (tracked != null) {
            // the sampler may hand it a parked pin meanwhile (give): one pin, whichever comes first
            synchronized (tracked) {
                if (tracked.pinning == null) {
                    tracked.pinned(pin(thread, tracked.tid, tracked.name, placement));
                    if (tracked.pinning != null) {
                        tracked.cpus = tracked.pinning.cpus().toString();
                    }
                }
            }
        }
    }

    /**
     * Pins a thread, and says where when its placement chose the CPUs; null, and said once, when the placement
     * cannot be had: the thread runs unpinned.
     */
    private ThreadPins.Pin pin(Thread thread, int tid, String name, Placement placement) {
        ThreadPins.Pin pin;
        try {
            pin = pins.pin(thread, tid, name, placement);
        } catch (IOException | RuntimeException e) {
            pinRefusals.refused(name, placement, e);
            return null;
        }
        try {
            String placed = ThreadPins.placed("pin=" + placement, List.of(pin));
            if (!placed.isEmpty()) {
                notices.sayOnce(AgentNotice.info(placed));
            }
        } catch (RuntimeException | Error e) {
            // where it went is left unsaid (no heap to say it): the pin is kept, and given back with the thread
        }
        return pin;
    }

    /** Gives a thread back the affinity it had before perfpin pinned it, and frees its reservation. */
    private void unpin(TrackedThread tracked) {
        ThreadPins.Pin pinning = tracked.pinning;
        tracked.pinning = null;
        pins.restore(pinning);
    }

    boolean isEnrolled(Thread thread) {
        return enrolled.containsKey(thread) || enrolledInC(thread);
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
        boolean wake;
        try {
            tracked.counters.threadEnding();
        } finally {
            wake = markEnded(tracked); // whatever failed: the sampler still finishes it, its descriptors closed
        }
        return wake;
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
        boolean wake;
        try {
            try {
                tracked.counters.disable();
            } finally {
                unpin(tracked); // its CPUs back, whatever the counters did
            }
        } finally {
            wake = markEnded(tracked); // whatever failed: the sampler still finishes it, its descriptors closed
        }
        return wake;
    }

    private boolean markEnded(TrackedThread tracked) {
        tracked.ended = true;
        return endedPending.incrementAndGet() >= WAKE_AFTER_ENDED;
    }

    /** Whether enough threads ended or left since the last tick that their descriptors should go now. */
    boolean endedWaiting() {
        return endedPending.get() >= WAKE_AFTER_ENDED;
    }

    /**
     * On the sampler: moves the threads enrolled since the last call into {@code live}, saying once what each
     * cannot count, which the enrolling thread was spared.
     */
    void admitInto(List<TrackedThread> live) {
        endedPending.set(0);
        if (inC) {
            adoptFromC(live);
        }
        for (TrackedThread t = admitted.poll(); t != null; t = admitted.poll()) {
            live.add(t);
            try {
                explain(t.counters);
            } catch (RuntimeException | Error e) {
                notices.sayOnce(Isolated.failed("saying what a thread cannot count", e));
            }
        }
    }

    private void explain(ThreadCounters counters) {
        if (counters.notCounted() != null) {
            if (firstTime(NOT_COUNTED, counters.notCounted())) {
                notices.sayOnce(AgentNotice.refused(
                        "not counting threads while no file descriptor is left for them: " + counters.notCounted()));
            }
            return;
        }
        for (EventFailure failure : counters.unsupported()) {
            if (firstTime(failure.event().name(), failure.reason())) {
                notices.sayOnce(AgentNotice.notCounted(failure.event().name(), failure.reason()));
            }
        }
        if (!counters.sources().isEmpty()
                && firstTime(ThreadCounters.PROC, counters.sources().keySet())) {
            notices.sayOnce(AgentNotice.info(
                    "counting " + String.join(", ", counters.sources().keySet())
                            + " from /proc/<pid>/task/<tid>, the scheduler's own counts (exact): the kernel does not"
                            + " permit these events to perfpin here (perf_event_paranoid)"));
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
        Set<Object> reasons = explained.get(what);
        if (reasons == null) {
            reasons = new HashSet<>();
            explained.put(what, reasons);
        }
        return reasons.add(why);
    }

    /**
     * On the sampler, once the thread's final counts are read: its descriptors close, its pin is undone, each
     * whether or not the other could be.
     */
    void finished(TrackedThread t) {
        try {
            try {
                t.counters.close();
            } catch (RuntimeException | Error e) {
                notices.sayOnce(Isolated.failed("closing a thread's counters", e));
            }
            try {
                unpin(t);
            } catch (RuntimeException | Error e) {
                notices.sayOnce(Isolated.failed("giving a thread back its CPUs", e));
            }
        } finally {
            enrolled.remove(t.thread, t);
        }
    }

    /**
     * Enrols no more threads, and waits for enrolments under way, so that the sampler's last tick has them all; then
     * says how many threads each placement could not pin.
     */
    void close() {
        closed = true;
        if (inC) {
            // C's enrolments in flight are done when it returns, or past its deadline each closes what it opens
            // itself: the last tick adopts every thread they enrolled before it, and none after
            int rc = NativeEnrolment.stop(syscalls);
            if (rc > 0) {
                notices.sayOnce(AgentNotice.info("closing: " + rc + (rc == 1 ? " thread" : " threads")
                        + " starting still being enrolled after " + NativeEnrolment.STOP_WAIT_SECONDS
                        + " s; each closes the counters it opens itself"
                        + " once its start goes on"));
            } else if (rc < 0) {
                notices.sayOnce(AgentNotice.refused(
                        "closing: threads starting still being enrolled (" + Errno.name(-rc) + ")"));
            }
        }
        long deadline = System.nanoTime() + ENROLMENTS_IN_FLIGHT_NANOS;
        while (enrolling.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
        pinRefusals.sayCounts();
    }
}
