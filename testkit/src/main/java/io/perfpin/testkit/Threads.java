package io.perfpin.testkit;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Waits on a test's own threads with a deadline: a thread that hangs, or dies before it counts a latch down, fails
 * the test, naming what it waited for, where a bare {@link Thread#join()} or {@link CountDownLatch#await()} would
 * hang the build.
 */
public final class Threads {
    private Threads() {}

    /** Waits for each of {@code threads} to end, within {@link TestJvm#DEADLINE} each; fails on the first still alive. */
    public static void join(Thread... threads) throws InterruptedException {
        join(TestJvm.DEADLINE, threads);
    }

    public static void join(Iterable<? extends Thread> threads) throws InterruptedException {
        for (Thread thread : threads) {
            join(thread);
        }
    }

    /** Waits until {@code latch} is counted down, within {@link TestJvm#DEADLINE}; fails when it is not. */
    public static void await(CountDownLatch latch) throws InterruptedException {
        if (!latch.await(TestJvm.DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(latch + " not counted down within " + TestJvm.DEADLINE);
        }
    }

    /** As {@link #join(Thread...)}, within {@code within} each. */
    public static void join(Duration within, Thread... threads) throws InterruptedException {
        for (Thread thread : threads) {
            thread.join(within.toMillis());
            if (thread.isAlive()) {
                throw new AssertionError("thread " + thread.getName() + " still runs after " + within + ", at:\n"
                        + Arrays.stream(thread.getStackTrace())
                                .map(frame -> "    " + frame)
                                .collect(Collectors.joining("\n")));
            }
        }
    }
}
