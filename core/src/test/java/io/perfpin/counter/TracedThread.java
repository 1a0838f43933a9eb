package io.perfpin.counter;

import io.perfpin.jvm.ProcText;
import io.perfpin.jvm.TaskStat;
import io.perfpin.nativeio.Backends;
import io.perfpin.testkit.Threads;
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
        this(name, () -> {}, work);
    }

    /** {@code setup} runs on the thread before it publishes its TID, so before any counter is opened. */
    TracedThread(String name, Work setup, Work work) {
        thread = new Thread(
                () -> {
                    tid = Backends.syscalls().gettid();
                    try {
                        setup.run();
                    } catch (Throwable t) {
                        failure = t;
                    }
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
                },
                name);
        thread.setDaemon(true);
        thread.start();
    }

    int tid() throws InterruptedException {
        Threads.await(started);
        return tid;
    }

    Thread thread() {
        return thread;
    }

    /**
     * Its TID once the kernel has it asleep (state S in its stat file), waiting for {@link #runWork}: its going to
     * sleep is a context switch of its own, which counters opened before it would count.
     */
    int asleepTid() throws Exception {
        int id = tid();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!TaskStat.field(ProcText.read("/proc/self/task/" + id + "/stat"), 3)
                .orElse("")
                .equals("S")) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("thread " + id + " not asleep after 60 s");
            }
            Thread.sleep(1);
        }
        return id;
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
        Threads.join(thread);
    }

    /**
     * Waits until the kernel thread is gone too: join() returns when the Java thread has ended, while its
     * OS thread may still be tearing down under the same TID.
     */
    void awaitKernelExit() throws InterruptedException {
        java.nio.file.Path task = java.nio.file.Paths.get("/proc/self/task/" + tid);
        for (int i = 0; i < 10_000 && java.nio.file.Files.exists(task); i++) {
            Thread.sleep(1);
        }
        if (java.nio.file.Files.exists(task)) {
            throw new AssertionError("thread " + tid + " still exists in the kernel");
        }
    }
}
