package io.perfpin.registry;

import io.perfpin.nativeio.NativeEnrolment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Rules as the agent's hooks answer them for C: counted when the name says so, the answer good for its number. One
 * class for every test of C's enrolment: the JVM's thread events keep the first hooks class they are given, for good.
 */
public final class RulesInC {
    static final List<String> ASKED = new CopyOnWriteArrayList<>();
    static final List<String> STARTED = new CopyOnWriteArrayList<>();
    /** How long a held thread waits at most, so that a failed test leaves none behind. */
    private static final long HELD_SECONDS = 60;

    private static volatile CountDownLatch entered = new CountDownLatch(1);
    private static volatile CountDownLatch letGo = new CountDownLatch(0);

    private RulesInC() {}

    /** From now on a thread named {@code in-c-held-N} waits here, its start in flight in C, until {@link #letGo}. */
    static void hold() {
        entered = new CountDownLatch(1);
        letGo = new CountDownLatch(1);
    }

    /** Whether a held thread came within the deadline. */
    static boolean awaitHeld() throws InterruptedException {
        return entered.await(HELD_SECONDS, TimeUnit.SECONDS);
    }

    static void letGo() {
        letGo.countDown();
    }

    public static int decide(Thread thread) {
        String name = thread.getName();
        if (!name.startsWith("in-c-")) {
            return NativeEnrolment.SKIP; // the JVM's and the test runner's own, uncached
        }
        ASKED.add(name);
        if (name.startsWith("in-c-held-")) {
            entered.countDown();
            try {
                letGo.await(HELD_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return NativeEnrolment.COUNT;
        }
        return (name.startsWith("in-c-counted-") ? NativeEnrolment.COUNT : NativeEnrolment.SKIP)
                | NativeEnrolment.CACHEABLE;
    }

    public static boolean runStarting(Thread thread) {
        if (thread.getName().startsWith("in-c-")) {
            STARTED.add(thread.getName());
        }
        return false;
    }

    public static void runEnded(Thread thread) {}
}
