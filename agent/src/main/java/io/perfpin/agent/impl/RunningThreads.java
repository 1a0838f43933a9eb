package io.perfpin.agent.impl;

import io.perfpin.cpu.Placement;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.JavaThreads;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.registry.ThreadRegistry;
import java.util.Map;
import net.bytebuddy.description.annotation.AnnotationList;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

/**
 * Enrols the threads that already run when the agent arrives by dynamic attach: the woven {@code run()}
 * only sees threads that start later. {@link JavaThreads} maps each Java thread to its TID; a thread is
 * enrolled when the rules name it, or when it is an instance of a {@code @Pinned}/{@code @Counted} Thread
 * subclass. (A running thread whose annotated Runnable is already inside {@code run()} is not found: the
 * JVM offers no public way to see a thread's Runnable.)
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
                    } catch (AttachException | RuntimeException e) {
                        AgentLog.refused("cannot enrol the threads already running (" + e.getMessage()
                                + "); threads that start" + " from now on are enrolled");
                    }
                },
                "perfpin-attach");
        enrolling.setDaemon(true);
        enrolling.start();
    }

    static int enrol(Syscalls syscalls, ThreadRegistry registry, ThreadRules rules, AnnotationValues values)
            throws AttachException {
        int enrolled = 0;
        for (Map.Entry<Thread, Integer> entry : JavaThreads.live(syscalls).entrySet()) {
            Thread thread = entry.getKey();
            if (thread == Thread.currentThread()) {
                continue;
            }
            String name = thread.getName();
            boolean ok;
            if (rules.enrols(name, thread.getClass())) {
                ok = registry.enrol(thread, entry.getValue(), null, rules.placementFor(name));
            } else {
                AnnotationList annotations = annotationsOf(thread.getClass());
                Placement placement = values.placement(TaskAnnotations.placement(annotations));
                ok = TaskAnnotations.present(annotations)
                        && registry.enrol(
                                thread,
                                entry.getValue(),
                                values.events(TaskAnnotations.events(annotations)),
                                placement);
            }
            enrolled += ok ? 1 : 0;
        }
        return enrolled;
    }

    /** Read from the class file, so the annotation classes are not loaded on the agent's account. */
    private static AnnotationList annotationsOf(Class<?> type) {
        if (type == Thread.class || type.getClassLoader() == null) {
            return new AnnotationList.Empty();
        }
        TypePool pool = TypePool.Default.of(ClassFileLocator.ForClassLoader.of(type.getClassLoader()));
        TypePool.Resolution resolution = pool.describe(type.getName());
        return resolution.isResolved() ? resolution.resolve().getDeclaredAnnotations() : new AnnotationList.Empty();
    }
}
