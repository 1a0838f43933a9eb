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
    private final Thread thread;

    private Interrupter(Thread target) {
        thread = new Thread(
                () -> {
                    while (!done.get()) {
                        target.interrupt();
                    }
                },
                "interrupter");
    }

    /** Starts interrupting the calling thread. */
    public static Interrupter ofThisThread() {
        Interrupter interrupter = new Interrupter(Thread.currentThread());
        interrupter.thread.start();
        return interrupter;
    }

    @Override
    public void close() {
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
    }
}
