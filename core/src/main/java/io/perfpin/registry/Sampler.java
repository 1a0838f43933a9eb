package io.perfpin.registry;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.DescriptorTable;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsClosing;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The registry's one sampler thread. Each tick reads every enrolled thread's counters (one read(2) per kernel
 * group, and the thread's /proc files for the {@code sched} events the kernel does not permit), records them,
 * finishes the threads that ended (final record, descriptors closed, pin undone), runs the tick's listeners, and
 * publishes to the stats file last: whatever happens to that file, each thread has been dealt with. It is woken
 * early when many threads ended, so thread churn cannot pile up descriptors. Shortly after it starts it does what the
 * registry's start left to it, off the thread that started the registry: not at once, since a JVM that ends sooner (a
 * short main) would wait for it at its exit, for a stats file no viewer could have found.
 *
 * <p>Each piece of a tick is {@link Isolated}: one thread's reading, recording and finishing, each listener, the
 * flush, the stats file. A failure is said once and skips nothing else, so a recording that cannot be written
 * neither leaves a later thread's descriptors open and its pin in place on the last pass, nor starves the exports.
 */
final class Sampler {
    private final EnrolledThreads threads;
    private final RecordingWriter recording;
    /** Null while no stats file is published; set at most once, with the deferred work. */
    private volatile StatsPublisher stats;

    private final Notices notices;
    private final ThreadPins pins;
    /** Grown ahead of the counters of the threads this takes in, so that a thread that starts does not grow it. */
    private final DescriptorTable table;

    private final long intervalNanos;
    /** What the registry's start left to this thread; null when nothing. */
    private final Deferred deferred;
    /** How long after it starts the sampler does {@link #deferred}, at most: sooner when woken, or the interval. */
    private final long deferredDelayNanos;
    /**
     * Whether the CPU topology is read as the sampler starts, for pins the options ask for, so that the first thread
     * pinned does not pay for it in its own counts; otherwise once {@link #readTopologySoon} asks.
     */
    private final boolean topologyAtStart;
    /** Set by {@link #readTopologySoon}, taken by the sampler's next wake. */
    private volatile boolean topologyAsked;
    /** Whether the deferred work was done before close; read by {@link #closeDown}. */
    private boolean deferredDone;
    /** Set once {@link #closeDown} ran, on the sampler as it stopped or, where it never ran, on the closing thread. */
    private volatile boolean closedDown;

    private final List<TrackedThread> live = new ArrayList<>();
    /** The threads the current tick finalised, to publish after everything else it does. */
    private final List<TrackedThread> finishedThisTick = new ArrayList<>();

    private final Thread thread;
    private volatile boolean stopping;
    /** Why the stats file is closed as the sampler stops: the first {@link #finish}'s word. */
    private volatile StatsClosing closing;

    private final List<ThreadRegistry.TickListener> listeners = new CopyOnWriteArrayList<>();

    Sampler(
            EnrolledThreads threads,
            RecordingWriter recording,
            StatsPublisher stats,
            Notices notices,
            ThreadPins pins,
            DescriptorTable table,
            long intervalNanos,
            Deferred deferred,
            long deferredDelayNanos,
            boolean topologyAtStart) {
        this.threads = threads;
        this.recording = recording;
        this.stats = stats;
        this.notices = notices;
        this.pins = pins;
        this.table = table;
        this.intervalNanos = intervalNanos;
        this.deferred = deferred;
        this.deferredDelayNanos = Math.min(intervalNanos, deferredDelayNanos);
        this.topologyAtStart = topologyAtStart;
        this.thread = new Thread(
                new Runnable() {
                    // not this::run: a lambda's linking is a cost of the agent's start, on the application's main
                    // thread
                    @Override
                    public void run() {
                        sample();
                    }
                },
                "perfpin-sampler");
        this.thread.setDaemon(true);
        // Made here, on the thread that starts the registry: made on the sampler, with the heap full, the class would
        // be unusable for good, and every tick with it.
        Piece.values();
        // the first thread enrolled wakes this one for the table's first look, off the application's start
        threads.tableMark(table.mark(), thread);
    }

    /** What the registry's start left to the sampler, done shortly after it starts, not at once. */
    interface Deferred {
        /** On the sampler, once. */
        void run();

        /** At close instead, when the registry closed before the sampler came to it. */
        void skipped();
    }

    void start() {
        thread.start();
    }

    void onTick(ThreadRegistry.TickListener tickListener) {
        listeners.add(tickListener);
    }

    /** An ended virtual thread for the stats file's groups; dropped while no stats file is published. */
    void virtualEnded(String name, EventList events, CounterSnapshot counts) {
        StatsPublisher publisher = stats;
        if (publisher != null) {
            publisher.virtualEnded(name, events, counts);
        }
    }

    /** Ended virtual threads' counts summed, for the stats file's group; dropped while no stats file is published. */
    void virtualFolded(String group, EventList events, CounterSnapshot counts, int members) {
        StatsPublisher publisher = stats;
        if (publisher != null) {
            publisher.virtualFolded(group, events, counts, members);
        }
    }

    /** The running members of virtual groups, for the stats file; dropped while no stats file is published. */
    void virtualRunning(List<RunningVirtualGroup> groups) {
        StatsPublisher publisher = stats;
        if (publisher != null) {
            publisher.virtualRunning(groups);
        }
    }

    /** Publishes to {@code publisher} from the next tick on; only before the first. */
    void publishTo(StatsPublisher publisher) {
        stats = publisher;
    }

    /** Reads the CPU topology on the sampler, ahead of the interval: for pins that may come. */
    void readTopologySoon() {
        topologyAsked = true;
        LockSupport.unpark(thread);
    }

    /** Ticks now, ahead of the interval. */
    void wake() {
        LockSupport.unpark(thread);
    }

    /**
     * Ends the sampler thread, which ticks a last time as it stops, finalising every thread, and closes the stats file,
     * marked closed ({@link #closeDown}). On the sampler rather than the closing thread, so that a close that may not
     * wait for good (the JVM's exit) waits for one thread, its last tick's writes included.
     *
     * @param boundNanos the most to wait for the sampler thread; 0 for no bound
     * @param why        why the stats file is closed: the JVM's exit, or a close while it runs on
     * @return false when the sampler thread had not ended by then, its tick or the last one still under way
     */
    boolean finish(long boundNanos, StatsClosing why) {
        if (closing == null) {
            closing = why;
        }
        stopping = true;
        LockSupport.unpark(thread);
        if (!joined(boundNanos)) {
            return false;
        }
        if (!closedDown) {
            closeDown(); // the thread never ran: nothing else does it
        }
        return true;
    }

    /**
     * What a close needs of the sampler: the deferred work said skipped where it did not come, the last tick where
     * anything receives it (no stats file, no recording, no listener that wants it: a short main's exit then waits for
     * no final read nobody sees), every thread let go of whatever failed before (its descriptors closed, its pin
     * undone), and the stats file closed.
     */
    private void closeDown() {
        try {
            if (!deferredDone && deferred != null) {
                deferred.skipped();
            }
        } catch (RuntimeException | Error e) {
            failed(Piece.GIVE_UP, null, e);
        }
        try {
            if (lastTickReceived()) {
                isolated(Piece.LAST_TICK, null, 0);
            }
        } finally {
            try {
                releaseLeftOver();
                // also after a fault in the last tick: its mapping is let go all the same
                isolated(Piece.CLOSE_STATS, null, 0);
            } finally {
                closedDown = true;
            }
        }
    }

    /** Whether the sampler thread ended, waited for whatever interrupts come: they are the caller's again after. */
    private boolean joined(long boundNanos) {
        boolean bounded = boundNanos != 0;
        long deadline = System.nanoTime() + boundNanos;
        boolean interrupted = false;
        try {
            while (thread.isAlive()) {
                long left = deadline - System.nanoTime();
                if (bounded && left <= 0) {
                    return false;
                }
                try {
                    // join(0) waits for good: a bounded wait asks for at least a millisecond
                    thread.join(bounded ? Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)) : 0);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean lastTickReceived() {
        if (stats != null || recording.path() != null) {
            return true;
        }
        for (ThreadRegistry.TickListener listener : listeners) {
            if (listener.wantsLastTick()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Threads the last tick did not finish, as when it failed before reaching them: their descriptors close and
     * their pins are undone here, without a final record.
     */
    private synchronized void releaseLeftOver() {
        isolated(Piece.ADMIT, null, 0);
        for (TrackedThread t : live) {
            threads.finished(t);
        }
        live.clear();
    }

    /**
     * Its start's work, then the ticks until it stops. Nothing thrown ends it, an {@code Error} included (a class that
     * cannot load, no memory left): a sampler that died would leave every thread that ends holding its descriptors, and
     * its error would reach the application's handler. What fails is said once.
     */
    private void sample() {
        long started = System.nanoTime();
        try {
            start(started);
        } catch (RuntimeException | Error e) {
            failed(Piece.START, null, e);
        }
        // the first tick an interval after the start, as if nothing had come between
        long park = Math.max(0, intervalNanos - (System.nanoTime() - started));
        while (!stopping) {
            try {
                tickUntilStopping(park);
            } catch (RuntimeException | Error e) {
                // An InternalError is thrown later than the write that faulted (see MappedFaults); the sampler goes on
                // all the same, whatever it was.
                failed(Piece.SAMPLING, null, e);
            }
            park = intervalNanos;
        }
        try {
            closeDown();
        } catch (RuntimeException | Error e) {
            failed(Piece.CLOSING, null, e);
        }
    }

    private void start(long started) {
        if (topologyAtStart && !stopping) {
            // not when the JVM already exits (a short main), whose exit would wait for it
            pins.readTopology();
        }
        // a pool's start that wakes it for the table leaves the deferred work to its time, not beside the pool
        long deferredAt = started + deferredDelayNanos;
        do {
            answerWakes();
            LockSupport.parkNanos(this, deferredAt - System.nanoTime());
        } while (!stopping && deferredAt - System.nanoTime() > 0 && !threads.endedWaiting());
        if (!stopping) {
            keepTableAhead(threads.tableReached());
            deferredDone = true;
            if (deferred != null) {
                deferred.run();
            }
        }
    }

    private void tickUntilStopping(long firstPark) {
        long next = System.nanoTime() + firstPark;
        while (!stopping) {
            // woken ahead of its time for the table or the topology: not a tick, which would compete with the pool
            answerWakes();
            LockSupport.parkNanos(this, next - System.nanoTime());
            if (stopping) {
                break;
            }
            // where ended threads wait for their final records, the tick comes now
            if (next - System.nanoTime() <= 0 || threads.endedWaiting()) {
                tick(false);
                next = System.nanoTime() + intervalNanos;
            }
        }
    }

    /**
     * What a wake ahead of the tick is for, looked at before each park rather than only after a wake: a thread has
     * one permit, which any park of its takes (a lock its work waits for, in the JDK), while what the waker left stays
     * until taken here. The table is looked at where an enrolled thread reached its mark; the topology read where it
     * was asked for, once the deferred work is done. A wake that found nothing left (one that came after what it was
     * for was done), or none at all (a park may end for nothing), parks again.
     */
    private void answerWakes() {
        int reached = threads.tableReached();
        if (reached >= 0) {
            keepTableAhead(reached);
        }
        // after the deferred work, as the read at its side used to be: neither the stats file nor a short main's exit
        // waits for it
        if (topologyAsked && deferredDone && !stopping) {
            topologyAsked = false;
            pins.readTopology();
        }
    }

    /** One sampling pass; {@code finalPass} finalises every thread, as at exit or detach. */
    private synchronized void tick(boolean finalPass) {
        long now = System.currentTimeMillis();
        finishedThisTick.clear();
        if (!finalPass) {
            keepTableAhead(threads.tableReached());
        }
        isolated(Piece.ADMIT, null, now);
        for (int i = live.size() - 1; i >= 0; i--) {
            TrackedThread t = live.get(i);
            boolean ended = finalPass || t.hasEnded();
            isolated(Piece.READ, t, now);
            if (ended) {
                live.set(i, live.get(live.size() - 1));
                live.remove(live.size() - 1);
                finishedThisTick.add(t);
                finish(t, now);
            } else {
                isolated(Piece.SAMPLE, t, now);
            }
        }
        for (ThreadRegistry.TickListener listener : listeners) {
            try {
                listener.threadsRead(live, finishedThisTick);
            } catch (RuntimeException | Error e) {
                failed(Piece.LISTENER, listener, e);
            }
            try {
                listener.afterTick(now, finalPass, recording);
            } catch (RuntimeException | Error e) {
                failed(Piece.LISTENER, listener, e);
            }
        }
        isolated(Piece.FLUSH, null, now);
        isolated(Piece.PUBLISH, null, now);
    }

    /**
     * The descriptor table's looks, each followed by its mark, from which an enrolled thread wakes this one:
     * looked at again after each growth, since a growth waits for the kernel while a pool's threads go on opening
     * descriptors, past the mark that was set before it.
     *
     * @param reached the descriptor of a thread that reached the last mark, or -1
     */
    private void keepTableAhead(int reached) {
        while (lookAtTable(reached)) {
            // grown: look again
        }
    }

    /**
     * One look at the descriptor table, and its mark: whether it grew, or wants another look; false where the look
     * failed, said once. The wake that brought this one here took the mark away, and a thread that passed it before it
     * was set again woke no one: a second look, once it is set, finds that thread's descriptors.
     */
    private boolean lookAtTable(int reached) {
        boolean grew = false;
        try {
            grew = table.keepAhead(Math.max(reached, highestHeldAtLeast()));
            threads.tableMark(table.mark(), thread);
            return grew || table.keepAhead(highestHeldAtLeast());
        } catch (IOException | RuntimeException | Error e) {
            failed(Piece.TABLE, null, e);
            return grew;
        }
    }

    /**
     * A descriptor number that perfpin's descriptors reach at least: as many as it holds, less one, since descriptors
     * are numbered from 0. Unlike the lowest free descriptor, a hole below them does not hide them: a pool that started
     * faster than the looks, and a descriptor closed since, left the lowest free one at 129 with 1,245 open.
     */
    private int highestHeldAtLeast() {
        return (int) Math.min(Integer.MAX_VALUE, threads.descriptorsHeld() - 1);
    }

    /** The thread's final record, then its descriptors and pin, which go whether or not the record was written. */
    private void finish(TrackedThread t, long now) {
        try {
            isolated(Piece.FINAL_RECORD, t, now);
        } finally {
            threads.finished(t);
        }
    }

    /**
     * The pieces of the sampler's work, each {@link Isolated}, and what else it says as failed. A test of each rather
     * than a lambda for each: some 20 ms of the sampler's CPU in a JVM that churns threads was linking lambdas, and a
     * lambda that captures the thread is an allocation per thread per tick. Names made once, rather than literals in
     * the handlers: a literal's string is made the first time its code runs, and a handler that first runs with the
     * heap full would throw again, out of the sampler.
     */
    private enum Piece {
        ADMIT("taking in new threads"),
        READ("reading a thread's counters"),
        SAMPLE("recording a thread's counts"),
        FINAL_RECORD("recording a thread's final counts"),
        FLUSH("flushing the recording"),
        PUBLISH("publishing to the stats file"),
        LAST_TICK("the last tick"),
        CLOSE_STATS("closing the stats file"),
        START("the sampler's start"),
        SAMPLING("sampling"),
        TABLE("growing the descriptor table"),
        LISTENER("the tick of"),
        GIVE_UP("giving up the work left for later"),
        CLOSING("closing");

        final String what;

        Piece(String what) {
            this.what = what;
        }
    }

    /**
     * Runs one piece of a tick, for thread {@code t} where it is one thread's: what it throws is said once, and the
     * tick goes on. A fault of the stats file's mapping that surfaces here stops publishing to it, as one caught where
     * it happened.
     */
    private void isolated(Piece piece, TrackedThread t, long now) {
        try {
            StatsPublisher publisher = stats;
            // ifs, not a switch: javac keeps an enum switch's table in a class of its own, made the first time the
            // switch runs, which a full heap would leave unusable for good, and every tick with it
            if (piece == Piece.ADMIT) {
                threads.admitInto(live);
            } else if (piece == Piece.READ) {
                t.read();
            } else if (piece == Piece.SAMPLE) {
                recording.sample(t, now);
            } else if (piece == Piece.FINAL_RECORD) {
                recording.finalRecord(t, now);
            } else if (piece == Piece.FLUSH) {
                recording.flush();
            } else if (piece == Piece.PUBLISH && publisher != null) {
                publisher.tick(live, finishedThisTick, now);
            } else if (piece == Piece.LAST_TICK) {
                tick(true);
            } else if (piece == Piece.CLOSE_STATS && publisher != null) {
                publisher.close(closing != null ? closing : StatsClosing.WHILE_RUNNING);
            }
        } catch (RuntimeException | Error e) {
            failed(piece, null, e);
        }
    }

    /**
     * Says what failed ({@code piece}, of {@code of}'s class where not null), and never throws itself: saying
     * allocates, which a heap out of memory may refuse again, and a throw from here would end the sampler. A notice it
     * could not say is left unsaid; counting goes on.
     */
    private void failed(Piece piece, Object of, Throwable failure) {
        try {
            if (failure instanceof InternalError) {
                faulted((InternalError) failure);
            } else {
                notices.sayOnce(Isolated.failed(
                        of == null
                                ? piece.what
                                : piece.what + " " + of.getClass().getName(),
                        failure));
            }
        } catch (RuntimeException | Error unsaid) {
            // the sampler goes on
        }
    }

    /** A fault that HotSpot threw after the code that took it had returned; only the stats file is mapped. */
    void faulted(InternalError fault) {
        StatsPublisher publisher = stats;
        if (publisher == null || !publisher.faulted(fault)) {
            notices.sayOnce(AgentNotice.failure("sampling failed", fault));
        }
    }
}
