package io.perfpin.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (SIGINT) or SIGTERM while a command waits: the wait ends early, and the JVM holds its exit until the
 * command has written what it measured and given back what it changed (pinned threads get their affinity
 * back), as {@code perf stat} prints its counts on Ctrl-C.
 */
final class StopSignal implements AutoCloseable {
    /** Long enough to read counters, write a report and restore pins; a hung command still exits. */
    private static final long FINISH_SECONDS = 10;

    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;

    private StopSignal() {
        hook = new Thread(
                () -> {
                    stop.countDown();
                    try {
                        finished.await(FINISH_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "perfpin-stop");
    }

    static StopSignal install() {
        StopSignal signal = new StopSignal();
        Runtime.getRuntime().addShutdownHook(signal.hook);
        return signal;
    }

    /** Waits {@code length}, or less when a signal came; returns whether it did. */
    boolean await(Duration length) throws InterruptedException {
        return stop.await(length.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The command is done: a signal's exit may go on. */
    @Override
    public void close() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs already, and now returns
        }
    }
}
