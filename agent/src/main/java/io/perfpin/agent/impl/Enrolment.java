package io.perfpin.agent.impl;

import io.perfpin.agent.bootstrap.ThreadEvents;
import io.perfpin.cpu.Placement;
import io.perfpin.nativeio.NativeEnrolment;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.registry.ThreadRegistry;

/**
 * Turns what the woven code reports into enrolments: a thread entering {@code run()} is pinned and counted
 * when the rules name it; an annotated task's thread while the task runs. A thread that a rule already counts
 * keeps the rule's events when it runs an annotated task, and {@code @Pinned} pins it if no rule did.
 */
final class Enrolment implements ThreadEvents {
    /**
     * JDK 21's virtual threads run on carrier threads that they change while they run: the kernel counts the
     * carrier, so perfpin neither pins nor counts a virtual thread. Null before JDK 21. Not initialised here: on
     * JDK 24 and newer that starts the JDK's VirtualThread-unblocker thread, which would outlive a detach.
     */
    private static final Class<?> VIRTUAL_THREAD = virtualThreadClass();

    private final ThreadRegistry registry;
    private final ThreadRules rules;
    private final AnnotationValues annotations;
    private final MethodCounting methods;
    private final Syscalls syscalls;
    /** Set once a thread measured a {@code @Counted} method: from then on C reports every thread's end. */
    private volatile boolean everyEndReported;

    Enrolment(
            ThreadRegistry registry,
            ThreadRules rules,
            AnnotationValues annotations,
            MethodCounting methods,
            Syscalls syscalls) {
        this.registry = registry;
        this.rules = rules;
        this.annotations = annotations;
        this.methods = methods;
        this.syscalls = syscalls;
    }

    /**
     * For perfpin's C library, once per name with its numeric suffix stripped when the rules allow
     * ({@link ThreadRules#blindToDigitSuffix()}), else for each thread: whether C counts the thread, leaves it be,
     * or hands it to {@link #runStarting}. A thread that a rule pins goes to Java, which pins it before its
     * counters open, on the thread itself: it is counted from its first instruction on its CPUs, and its move there
     * is not counted as a migration. C could only leave the pin to the sampler, a tick later. A thread that starts
     * with CPUs other than the process's, which it may have inherited, C never asks about but hands to Java.
     */
    @Override
    public int decide(Thread thread) {
        String name = thread.getName();
        int decision = rules.placementFor(name) != null
                ? NativeEnrolment.JAVA
                : rules.enrols(name, thread.getClass()) ? NativeEnrolment.COUNT : NativeEnrolment.SKIP;
        return rules.blindToDigitSuffix() ? decision | NativeEnrolment.CACHEABLE : decision;
    }

    @Override
    public boolean runStarting(Thread thread) {
        if (thread != Thread.currentThread() || registry.isEnrolled(thread)) {
            return false; // run() called as a plain method, or a nested run() of an enrolled thread
        }
        String name = thread.getName();
        boolean inherited = registry.threadStarting(rules.inheritsPin(name));
        return rules.enrols(name, thread.getClass())
                && registry.enrolCurrentThread(null, rules.placementFor(name), inherited);
    }

    @Override
    public void runEnded(Thread thread) {
        registry.threadEnded(thread);
        methods.threadEnded(thread);
    }

    @Override
    public Object taskStarting(String placement, String events) {
        Thread thread = Thread.currentThread();
        if (isVirtual(thread)) {
            return null;
        }
        if (registry.isEnrolled(thread)) {
            // A rule counts it already: it keeps the rule's events, and @Pinned still pins it.
            Placement where = annotations.placement(placement);
            if (where != null) {
                registry.pin(thread, where);
            }
            return null;
        }
        return registry.enrolCurrentThread(annotations.events(events), annotations.placement(placement))
                ? thread
                : null;
    }

    @Override
    public void taskEnded(Object token) {
        registry.leave((Thread) token);
    }

    @Override
    public Object methodEntering(int method) {
        Thread thread = Thread.currentThread();
        if (thread.getClass() == VIRTUAL_THREAD) {
            Object token = methods.enteringVirtual(method); // null unless virtual= counts virtual threads
            if (token == null) {
                isVirtual(thread); // says so, once
            }
            return token;
        }
        Object token = methods.entering(method);
        if (token != null && !everyEndReported) {
            // the thread's measured methods hold counters that its end closes (MethodCounting.threadEnded)
            everyEndReported = true;
            NativeEnrolment.reportEveryEnd(syscalls);
        }
        return token;
    }

    private static boolean isVirtual(Thread thread) {
        if (thread.getClass() != VIRTUAL_THREAD) {
            return false;
        }
        AgentLog.info("virtual threads are not pinned or counted: the kernel sees only the carrier threads they run on;"
                + " the agent option virtual=REGEX counts them (JDK 21 and later)");
        return true;
    }

    private static Class<?> virtualThreadClass() {
        try {
            return Class.forName("java.lang.VirtualThread", false, null);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    @Override
    public void methodExited(int method, Object token) {
        methods.exited(method, token);
    }
}
