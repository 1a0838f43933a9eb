package io.perfpin.testkit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A thread that interrupts another as fast as it can until closed, so that interrupts come inside the calls under
 * test, not only between them. Closed by the thread it interrupts: its close waits for the interrupter to end and
 * clears the interrupts it sent.
 */
public final class Interrupter implements AutoCloseable {
    private static final long DEADLINE_SECONDS = 20;

    private final AtomicBoolean done = new AtomicBoolean();
    private final Thread target;
    private final Thread thread;

    private Interrupter(Thread target) {
        this.target = target;
        thread = new Thread(
                () -> {
                    while (!done.get()) {
                        target.interrupt();
                    }
                },
                "interrupter");
        thread.setDaemon(true); // a test that never closes it does not keep its JVM alive
    }

    /** Starts interrupting the calling thread. */
    public static Interrupter ofThisThread() {
        Interrupter interrupter = new Interrupter(Thread.currentThread());
        interrupter.thread.start();
        return interrupter;
    }

    @Override
    public void close() {
        if (Thread.currentThread() != target) {
            throw new IllegalStateException(
                    "closed by " + Thread.currentThread().getName() + ", not by the thread it"
                            + " interrupts, whose interrupts it clears");
        }
        done.set(true);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        while (thread.isAlive() && System.nanoTime() < deadline) {
            try {
                thread.join(100);
            } catch (InterruptedException lastOnes) {
                // sent before the interrupter saw done
            }
        }
        Thread.interrupted();
        if (thread.isAlive()) {
            throw new IllegalStateException("the interrupter did not end within " + DEADLINE_SECONDS + " s");
        }
    }
}
