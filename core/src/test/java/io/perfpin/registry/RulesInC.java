package io.perfpin.registry;

import io.perfpin.nativeio.NativeEnrolment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Rules as the agent's hooks answer them for C: counted when the name says so, the answer good for its number. One
 * class for every test of C's enrolment: the JVM's thread events keep the first hooks class they are given, for good.
 */
public final class RulesInC {
    static final List<String> ASKED = new CopyOnWriteArrayList<>();
    static final List<String> STARTED = new CopyOnWriteArrayList<>();

    private RulesInC() {}

    public static int decide(Thread thread) {
        String name = thread.getName();
        if (!name.startsWith("in-c-")) {
            return NativeEnrolment.SKIP; // the JVM's and the test runner's own, uncached
        }
        ASKED.add(name);
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
