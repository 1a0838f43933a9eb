package io.perfpin.agent.impl;

import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.JavaThreads;
import io.perfpin.nativeio.OptionalLibrary;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.registry.ThreadRegistry;
import java.util.HashMap;
import java.util.Map;

/**
 * Enrols the threads that already run when the agent arrives by dynamic attach: the woven {@code run()}
 * only sees threads that start later. {@link JavaThreads} maps each Java thread to its TID; a thread is
 * enrolled when the rules name it, or when it is an instance of a {@code @Pinned}/{@code @Counted} Thread
 * subclass. (A running thread whose annotated Runnable is already inside {@code run()} is not found: the
 * JVM offers no public way to see a thread's Runnable.) Only a class whose class file names perfpin's annotations
 * is read for them, with byte-buddy ({@link AnnotatedThreadClass}), which is otherwise not loaded at all.
 */
final class RunningThreads {
    private RunningThreads() {}

    /**
     * Enrols them before the attach returns, so that a view started once it has (perfpin attach, however short)
     * finds them counted and pinned: on the attaching thread where perfpin's C library finds their TIDs. Where only
     * the JVM's thread dump can, it comes through the attach listener, which is busy calling agentmain meanwhile: on a
     * thread of its own then, and agentmain returns at once. What fails is said, and threads that start from then
     * on are enrolled all the same.
     */
    static void enrolRunning(Syscalls syscalls, ThreadRegistry registry, ThreadRules rules, AnnotationValues values) {
        // the attach listener's own thread too, where the rules name it: it ran before, as every other here
        if (!enrolSaying(syscalls, false, null, registry, rules, values)) {
            Thread enrolling = new Thread(
                    () -> enrolSaying(syscalls, true, Thread.currentThread(), registry, rules, values),
                    "perfpin-attach");
            enrolling.setDaemon(true);
            enrolling.start();
        }
    }

    /**
     * Enrols the threads that run, but {@code own}, perfpin's (null for none), as the rules or annotations select
     * them; what fails is said. False, having done nothing, where only the JVM's thread dump could map them and
     * {@code dump} does not allow it.
     */
    private static boolean enrolSaying(
            Syscalls syscalls,
            boolean dump,
            Thread own,
            ThreadRegistry registry,
            ThreadRules rules,
            AnnotationValues values) {
        try {
            Map<Thread, Integer> live = dump ? JavaThreads.live(syscalls) : JavaThreads.liveWithoutDump(syscalls);
            if (live == null) {
                return false;
            }
            enrol(live, own, registry, rules, values);
        } catch (AttachException | RuntimeException | Error e) {
            // an Error too (no heap left): neither the attach nor the thread it ran on is the application's to end
            failed(e);
        }
        return true;
    }

    private static void failed(Throwable e) {
        try {
            AgentLog.refused("cannot enrol the threads already running (" + e.getMessage()
                    + "); threads that start from now on are enrolled");
        } catch (RuntimeException | Error unsaid) {
            // nothing more to do
        }
    }

    private static void enrol(
            Map<Thread, Integer> live,
            Thread own,
            ThreadRegistry registry,
            ThreadRules rules,
            AnnotationValues values) {
        Boolean byteBuddy = null; // asked for when the first class that names the annotations is met
        Map<Class<?>, Boolean> namingAnnotations = new HashMap<>(); // a class file is read once, not once a thread
        for (Map.Entry<Thread, Integer> entry : live.entrySet()) {
            Thread thread = entry.getKey();
            if (thread == own) {
                continue;
            }
            String name = thread.getName();
            if (rules.enrols(name, thread.getClass())) {
                registry.enrol(thread, entry.getValue(), null, rules.placementFor(name));
            } else if (namingAnnotations.computeIfAbsent(thread.getClass(), RunningThreads::namesAnnotations)) {
                if (byteBuddy == null) {
                    String why = OptionalLibrary.unavailable(WeavingOnDemand.BYTE_BUDDY);
                    byteBuddy = why == null;
                    if (why != null) {
                        AgentLog.refused("cannot read the annotations of the threads already running (byte-buddy: "
                                + why + "); the rules alone enrol them");
                    }
                }
                if (byteBuddy) {
                    AnnotatedThreadClass.enrol(registry, thread, entry.getValue(), values);
                }
            }
        }
    }

    /** Whether {@code type}'s class file names perfpin's annotations: the JDK's and Thread itself never do. */
    private static boolean namesAnnotations(Class<?> type) {
        return type != Thread.class
                && type.getClassLoader() != null
                && WeavingOnDemand.classFileNamesAnnotations(type.getClassLoader(), type.getName());
    }
}
