package io.perfpin.apps;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The threads a workload starts, each with its own name so that perfpin's rules and reports can tell them
 * apart. The caller joins them; a thread's failure is rethrown to the caller instead of ending with the
 * thread.
 */
final class Crew {
    private final Deque<Thread> started = new ArrayDeque<>();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    /** Runs {@code work} on a new thread named {@code name} and waits for it. */
    static void run(String name, Runnable work) throws InterruptedException {
        Crew crew = new Crew();
        crew.start(name, work);
        crew.joinAll();
    }

    /**
     * Starts {@code work} on a new thread named {@code name}. The thread runs the Runnable itself, not a
     * wrapper, so the perfpin agent sees the Runnable's own type and its annotations.
     */
    void start(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        // A daemon, so that a spinning partner of a failed thread cannot keep the JVM alive.
        thread.setDaemon(true);
        thread.setUncaughtExceptionHandler((t, e) ->
                failure.compareAndSet(null, new IllegalStateException("thread " + t.getName() + " failed: " + e, e)));
        thread.start();
        started.add(thread);
    }

    /** Threads started and not joined yet. */
    int unjoined() {
        return started.size();
    }

    /** Waits for the earliest started thread not joined yet; rethrows the first failure of any thread. */
    void joinOldest() throws InterruptedException {
        started.remove().join();
        RuntimeException failed = failure.get();
        if (failed != null) {
            throw failed;
        }
    }

    void joinAll() throws InterruptedException {
        while (!started.isEmpty()) {
            joinOldest();
        }
    }
}
