package io.perfpin.counter;

import io.perfpin.nativeio.Backends;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A thread for counter tests: it publishes its TID, waits until the test has opened counters on it, runs
 * its work, then stays alive until released, so the test can read its counters from outside.
 */
final class TracedThread implements AutoCloseable {
    interface Work {
        void run() throws Exception;
    }

    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch go = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final Thread thread;
    private volatile int tid;
    private volatile Throwable failure;

    TracedThread(String name, Work work) {
        thread = new Thread(() -> {
            tid = Backends.syscalls().gettid();
            started.countDown();
            try {
                go.await();
                work.run();
            } catch (Throwable t) {
                failure = t;
            } finally {
                done.countDown();
            }
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    int tid() throws InterruptedException {
        started.await();
        return tid;
    }

    Thread thread() {
        return thread;
    }

    /** Lets the work run and waits for it to finish; rethrows what it threw. */
    void runWork() throws Exception {
        go.countDown();
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("work did not finish in 60 s");
        }
        if (failure != null) {
            throw new AssertionError("work failed", failure);
        }
    }

    @Override
    public void close() throws InterruptedException {
        go.countDown();
        release.countDown();
        thread.join();
    }
}
