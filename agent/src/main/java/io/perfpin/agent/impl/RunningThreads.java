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
     * Enrols them on a thread of its own, so that agentmain returns at once: the thread dump that maps them
     * without the C library comes through the attach listener, which is busy calling agentmain meanwhile.
     */
    static void enrolInBackground(
            Syscalls syscalls, ThreadRegistry registry, ThreadRules rules, AnnotationValues values) {
        Thread enrolling = new Thread(
                () -> {
                    try {
                        enrol(syscalls, registry, rules, values);
                    } catch (AttachException | RuntimeException | Error e) {
                        // an Error too (no heap left): the thread is the agent's, and its end is not the application's
                        try {
                            AgentLog.refused("cannot enrol the threads already running (" + e.getMessage()
                                    + "); threads that start" + " from now on are enrolled");
                        } catch (RuntimeException | Error unsaid) {
                            // nothing more to do on this thread
                        }
                    }
                },
                "perfpin-attach");
        enrolling.setDaemon(true);
        enrolling.start();
    }

    static int enrol(Syscalls syscalls, ThreadRegistry registry, ThreadRules rules, AnnotationValues values)
            throws AttachException {
        int enrolled = 0;
        Boolean byteBuddy = null; // asked for when the first class that names the annotations is met
        Map<Class<?>, Boolean> namingAnnotations = new HashMap<>(); // a class file is read once, not once a thread
        for (Map.Entry<Thread, Integer> entry : JavaThreads.live(syscalls).entrySet()) {
            Thread thread = entry.getKey();
            if (thread == Thread.currentThread()) {
                continue;
            }
            String name = thread.getName();
            boolean ok = false;
            if (rules.enrols(name, thread.getClass())) {
                ok = registry.enrol(thread, entry.getValue(), null, rules.placementFor(name));
            } else if (namingAnnotations.computeIfAbsent(thread.getClass(), RunningThreads::namesAnnotations)) {
                if (byteBuddy == null) {
                    String why = OptionalLibrary.unavailable(WeavingOnDemand.BYTE_BUDDY);
                    byteBuddy = why == null;
                    if (why != null) {
                        AgentLog.refused("cannot read the annotations of the threads already running (byte-buddy: "
                                + why + "); the rules alone enrol them");
                    }
                }
                ok = byteBuddy && AnnotatedThreadClass.enrol(registry, thread, entry.getValue(), values);
            }
            enrolled += ok ? 1 : 0;
        }
        return enrolled;
    }

    /** Whether {@code type}'s class file names perfpin's annotations: the JDK's and Thread itself never do. */
    private static boolean namesAnnotations(Class<?> type) {
        return type != Thread.class
                && type.getClassLoader() != null
                && WeavingOnDemand.classFileNamesAnnotations(type.getClassLoader(), type.getName());
    }
}
