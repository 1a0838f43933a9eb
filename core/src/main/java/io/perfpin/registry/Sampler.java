package io.perfpin.registry;

import io.perfpin.stats.AgentNotice;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * The registry's one sampler thread. Each tick reads every enrolled thread's counters (one read(2) per kernel
 * group, and the thread's /proc files for the {@code sched} events the kernel does not permit), records them,
 * finishes the threads that ended (final record, descriptors closed, pin undone), runs the tick's listeners, and
 * publishes to the stats file last: whatever happens to that file, each thread has been dealt with. It is woken
 * early when many threads ended, so thread churn cannot pile up descriptors. Before its first tick it does what the
 * registry's start left to it, off the thread that started the registry.
 */
final class Sampler {
    private final EnrolledThreads threads;
    private final RecordingWriter recording;
    /** Null while no stats file is published; set at most once, before the first tick. */
    private volatile StatsPublisher stats;
    private final Notices notices;
    private final Pinner pinner;
    private final long intervalNanos;
    /** What the registry's start left to this thread, run before its first tick. */
    private final Runnable beforeFirstTick;
    private final List<TrackedThread> live = new ArrayList<>();
    /** The threads the current tick finalised, to publish after everything else it does. */
    private final List<TrackedThread> finishedThisTick = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopping;
    private final List<ThreadRegistry.TickListener> listeners = new CopyOnWriteArrayList<>();

    Sampler(EnrolledThreads threads, RecordingWriter recording, StatsPublisher stats, Notices notices, Pinner pinner,
            long intervalNanos, Runnable beforeFirstTick) {
        this.threads = threads;
        this.recording = recording;
        this.stats = stats;
        this.notices = notices;
        this.pinner = pinner;
        this.intervalNanos = intervalNanos;
        this.beforeFirstTick = beforeFirstTick;
        this.thread = new Thread(this::run, "perfpin-sampler");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void onTick(ThreadRegistry.TickListener tickListener) {
        listeners.add(tickListener);
    }

    /** Publishes to {@code publisher} from the next tick on; only before the first. */
    void publishTo(StatsPublisher publisher) {
        stats = publisher;
    }

    /** Ticks now, ahead of the interval. */
    void wake() {
        LockSupport.unpark(thread);
    }

    /**
     * Ends the sampler thread, then ticks a last time on the calling thread, finalising every thread, and closes the
     * stats file, marked closed.
     */
    void finish() {
        stopping = true;
        LockSupport.unpark(thread);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            tick(true);
        } catch (InternalError fault) {
            faulted(fault);
        }
        StatsPublisher publisher = stats;
        if (publisher != null) {
            try {
                publisher.close(); // also after a fault in the last tick: its mapping is let go all the same
            } catch (InternalError fault) {
                faulted(fault);
            }
        }
    }

    private void run() {
        beforeFirstTick.run();
        if (!stopping) {
            // here, so the first thread pinned does not pay for it in its own counts; not when the JVM already exits
            // (a short main), whose exit would wait for it
            pinner.readTopology();
        }
        while (!stopping) {
            try {
                tickUntilStopping();
            } catch (InternalError fault) {
                // Thrown later than the write that faulted (see MappedFaults): the sampler goes on all the same.
                faulted(fault);
            }
        }
    }

    private void tickUntilStopping() {
        while (!stopping) {
            LockSupport.parkNanos(this, intervalNanos);
            if (stopping) {
                break;
            }
            tick(false);
        }
    }

    /** One sampling pass; {@code finalPass} finalises every thread, as at exit or detach. */
    private synchronized void tick(boolean finalPass) {
        long now = System.currentTimeMillis();
        finishedThisTick.clear();
        try {
            threads.admitInto(live);
            for (int i = live.size() - 1; i >= 0; i--) {
                TrackedThread t = live.get(i);
                boolean ended = finalPass || t.hasEnded();
                t.read();
                if (ended) {
                    live.set(i, live.get(live.size() - 1));
                    live.remove(live.size() - 1);
                    finishedThisTick.add(t);
                    finish(t, now);
                } else {
                    recording.sample(t, now);
                }
            }
            for (ThreadRegistry.TickListener listener : listeners) {
                listener.threadsRead(live, finishedThisTick);
                listener.afterTick(now, finalPass, recording::line);
            }
            recording.flush();
        } catch (IOException | RuntimeException e) {
            notices.sayOnce(AgentNotice.refused("sampling failed: " + e));
        }
        StatsPublisher publisher = stats;
        if (publisher != null) {
            publisher.tick(live, finishedThisTick, now);
        }
    }

    private void finish(TrackedThread t, long now) throws IOException {
        try {
            recording.finalRecord(t, now);
        } finally {
            threads.finished(t);
        }
    }

    /** A fault that HotSpot threw after the code that took it had returned; only the stats file is mapped. */
    void faulted(InternalError fault) {
        StatsPublisher publisher = stats;
        if (publisher == null || !publisher.faulted(fault)) {
            notices.sayOnce(AgentNotice.refused("sampling failed: " + fault));
        }
    }
}
