package io.perfpin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (SIGINT) or SIGTERM while a command waits: the wait ends early, and the JVM holds its exit until the
 * command has written what it measured and given back what it changed (pinned threads get their affinity
 * back), as {@code perf stat} prints its counts on Ctrl-C. Within a command that {@link #hold} holds, the exit
 * waits (up to {@value #FINISH_SECONDS} s) for the whole command, its failure's line included, not only for the
 * block that installed the signal: a failure's line is said after that block, and an exit that did not wait for it
 * lost the line. An attach holds one while its trigger file is in the target JVM, which an exit would otherwise
 * leave there.
 */
public final class StopSignal implements AutoCloseable {
    /** The signals installed by the command that runs on this thread, where one is held: released when it ends. */
    private static final ThreadLocal<List<StopSignal>> HELD = new ThreadLocal<>();

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

    /**
     * A signal for the block about to run. Where one came already (during an attach's load, before its view began),
     * the JVM is shutting down and takes no hook: the block is stopped from its start, and said as stopped.
     */
    public static StopSignal install() {
        StopSignal signal = new StopSignal();
        try {
            Runtime.getRuntime().addShutdownHook(signal.hook);
        } catch (IllegalStateException shuttingDown) {
            signal.stop.countDown();
            return signal; // no hook, so no exit to hold
        }
        List<StopSignal> held = HELD.get();
        if (held != null) {
            held.add(signal);
        }
        return signal;
    }

    /**
     * Holds the exit of every signal that the command about to run on this thread installs until {@link #release};
     * returns what to give it.
     */
    public static List<StopSignal> hold() {
        List<StopSignal> held = new ArrayList<>();
        HELD.set(held);
        return held;
    }

    /** The command that {@link #hold} returned {@code held} for is done: a signal's exit may go on. */
    public static void release(List<StopSignal> held) {
        HELD.remove();
        finishAll(held);
    }

    /**
     * Lets a signal's exit go on from here for the signals the command on this thread installed so far: what it does
     * next (waiting for an application it launched) is not work of perfpin's to finish.
     */
    public static void releaseHeld() {
        List<StopSignal> held = HELD.get();
        if (held != null) {
            finishAll(held);
            held.clear();
        }
    }

    private static void finishAll(List<StopSignal> signals) {
        for (StopSignal signal : signals) {
            signal.finish();
        }
    }

    /** Waits {@code length}, or less when a signal came; returns whether it did. */
    public boolean await(Duration length) throws InterruptedException {
        return stop.await(length.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The block that installed it is done: a signal's exit may go on, unless the whole command is held. */
    @Override
    public void close() {
        List<StopSignal> held = HELD.get();
        if (held == null || !held.contains(this)) {
            finish();
        }
    }

    private void finish() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs already, and now returns
        }
    }
}
