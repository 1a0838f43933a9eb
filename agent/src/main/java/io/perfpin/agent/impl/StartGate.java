package io.perfpin.agent.impl;

import io.perfpin.agent.bootstrap.ThreadEvents;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The thread hooks while the agent starts on a thread of its own, once premain has returned and main() runs: a
 * thread that starts meanwhile waits for the start, at most {@link #PATIENCE_MILLIS}, and is then enrolled as any
 * thread that starts later is, from its first instruction. One that waited that long is handed to the start when it
 * ends ({@link #open}), which enrols it by its TID, counted from then on. So is main's thread, which runs premain,
 * unless the JVM reports its start once premain returned, as HotSpot does: where the rules count it, it then waits
 * there as any starting thread does, and is counted from main()'s first instruction. When the start fails, every
 * thread goes on uncounted at once.
 */
final class StartGate implements ThreadEvents {
    /**
     * How long a starting thread waits for the agent's start, at most: the start takes tens of milliseconds, and
     * seconds on a machine loaded many times over; this bound is for a start that hangs, which never holds the
     * application for longer.
     */
    static final long PATIENCE_MILLIS = 10_000;

    private final CountDownLatch ended = new CountDownLatch(1);
    /**
     * True on the start's thread and on every thread it creates (the sampler's, the exporters'), which must not
     * wait for the start that waits for them: a thread takes it from the one that creates it, and the JVM reports
     * a thread's start before any of its own code runs.
     */
    private final InheritableThreadLocal<Boolean> ofTheStart = new InheritableThreadLocal<>();
    /** The agent's own hooks once it started; null before, and for good when it failed. */
    private volatile ThreadEvents agent;
    /** Threads that went on before the start ended, with their TIDs; null once it ended. */
    private Map<Thread, Integer> passed = new HashMap<>();
    private final TidOfCurrentThread tids;
    /** Whether the rules count a thread: main's waits for the start only then. */
    private final Predicate<Thread> counted;

    /** The caller's own TID, as the kernel knows it. */
    interface TidOfCurrentThread {
        int tid();
    }

    StartGate(TidOfCurrentThread tids, Predicate<Thread> counted) {
        this.tids = tids;
        this.counted = counted;
    }

    /** The start's thread, made by {@code create} on the calling thread: it and the threads it makes pass. */
    Thread startThread(Supplier<Thread> create) {
        ofTheStart.set(Boolean.TRUE);
        try {
            return create.get();
        } finally {
            ofTheStart.remove();
        }
    }

    /** Hands the calling thread (premain's, which runs main) to the start, to be enrolled when it ends. */
    void passCurrentThread() {
        pass(Thread.currentThread());
    }

    /**
     * The start ended with {@code started} the agent's hooks, or null when it failed: the threads waiting go on,
     * enrolled by it or not, and those that went on before are returned, the ones still alive, to be enrolled.
     * Only the first call opens; a later one (a start that failed after it opened) returns none.
     */
    synchronized Map<Thread, Integer> open(ThreadEvents started) {
        if (passed == null) {
            return new HashMap<>(); // opened already, by a start that then failed: its own hooks are gone
        }
        agent = started;
        Map<Thread, Integer> before = passed;
        passed = null;
        ended.countDown();
        before.keySet().removeIf(t -> !t.isAlive());
        return before;
    }

    @Override
    public boolean runStarting(Thread thread) {
        if (thread != Thread.currentThread() || ofTheStart.get() != null) {
            return false; // run() called as a plain method; or the start's own thread, which it does not count
        }
        if (handed(thread) && !(counted.test(thread) && takeBack(thread))) {
            return false; // main's, which the rules do not count: nothing of it to count before the start ends
        }
        try {
            ended.await(PATIENCE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the application's to see: it goes on, handed to the start
        }
        ThreadEvents started = agent;
        if (started != null) {
            return started.runStarting(thread);
        }
        pass(thread);
        return false;
    }

    private synchronized boolean handed(Thread thread) {
        return passed != null && passed.containsKey(thread);
    }

    /** Whether {@code thread} was handed to the start, which has not ended, and is now held as it starts. */
    private synchronized boolean takeBack(Thread thread) {
        return passed != null && passed.remove(thread) != null;
    }

    private synchronized void pass(Thread thread) {
        if (passed != null) {
            passed.put(thread, tids.tid());
        }
    }

    @Override
    public void runEnded(Thread thread) {
        ThreadEvents started = agent;
        if (started != null) {
            started.runEnded(thread);
            return;
        }
        synchronized (this) {
            if (passed != null) {
                passed.remove(thread);
            }
        }
    }

    // The woven calls reach the agent's own hooks: weaving starts within the start, after they replaced these.

    @Override
    public Object taskStarting(String placement, String events) {
        ThreadEvents started = agent;
        return started == null ? null : started.taskStarting(placement, events);
    }

    @Override
    public void taskEnded(Object token) {
        ThreadEvents started = agent;
        if (started != null) {
            started.taskEnded(token);
        }
    }

    @Override
    public Object methodEntering(int method) {
        ThreadEvents started = agent;
        return started == null ? null : started.methodEntering(method);
    }

    @Override
    public void methodExited(int method, Object token) {
        ThreadEvents started = agent;
        if (started != null) {
            started.methodExited(method, token);
        }
    }
}
