package io.perfpin.cli;

import io.perfpin.jvm.ProcessIdentity;
import io.perfpin.jvm.ThreadWatch;
import java.util.concurrent.CountDownLatch;

/**
 * The JVM that {@code perfpin stat PID} will count, looked at while picocli still reads the options: its identity
 * and its threads, named by one thread dump. picocli's reading is most of stat's start and the dump most of the
 * rest, so the two take their time side by side rather than one after the other.
 *
 * <p>It is a guess from the raw arguments, so it looks only where nothing can go wrong: at the PID written right
 * after {@code stat}, and only through an attach listener that already runs ({@link ThreadWatch#startIfListening}:
 * no trigger file, no signal). A dump changes nothing in the JVM, so a command line that turns out wrong leaves it
 * as it was. Stat takes the look only when the PID it parsed is the one looked at; otherwise, or when the look
 * failed, it looks again itself, and says what fails there.
 */
final class EarlyLook {
    /** What stat would take first: the identity, then the threads, so that the dump is of the process checked. */
    record Look(ProcessIdentity process, ThreadWatch watch) {}

    private static volatile long pid = -1;
    private static volatile Looking look;

    private EarlyLook() {}

    /** The PID {@code args} give right after {@code stat}, or -1. */
    static long guess(String[] args) {
        if (args.length < 2 || args[1].isEmpty() || args[1].length() > 10) {
            return -1;
        }
        for (int i = 0; i < args[1].length(); i++) {
            if (args[1].charAt(i) < '0' || args[1].charAt(i) > '9') {
                return -1;
            }
        }
        long guessed = Long.parseLong(args[1]);
        return guessed > 0 && guessed <= Integer.MAX_VALUE ? guessed : -1;
    }

    /**
     * The look at the guessed JVM, to run on another thread; null when there is no guess. Made here, on the thread
     * that parses, so that {@link #take} finds it however late it runs.
     */
    static Runnable plan(String[] args) {
        long guessed = guess(args);
        if (guessed < 0) {
            return null;
        }
        Looking task = new Looking(guessed);
        pid = guessed;
        look = task;
        return task;
    }

    /**
     * Looks at one JVM, and hands what it saw to the thread that takes it. A latch, not a FutureTask: initialising
     * FutureTask's variable handles was 1.4 ms of the main thread, before picocli starts.
     */
    private static final class Looking implements Runnable {
        private final long pid;
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile Look seen;

        Looking(long pid) {
            this.pid = pid;
        }

        @Override
        public void run() {
            try {
                seen = new Look(ProcessIdentity.of(pid), ThreadWatch.startIfListening(pid));
            } catch (Throwable e) {
                // Met again where stat looks itself, and said there; caught whole, as a FutureTask would, so that the
                // thread goes on with the rest of stat's preparation.
            } finally {
                done.countDown();
            }
        }
    }

    /** The look planned will not run (no thread took it): stat looks itself. */
    static void forget() {
        look = null;
    }

    /**
     * The look at {@code parsed}, waited for if it is still under way (the dump's own timeout bounds it); null
     * when it looked elsewhere, or not at all, or failed.
     */
    static Look take(long parsed) throws InterruptedException {
        Looking task = look;
        if (task == null || pid != parsed) {
            return null;
        }
        look = null;
        task.done.await();
        return task.seen;
    }
}
