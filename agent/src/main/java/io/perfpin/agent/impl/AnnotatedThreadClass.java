package io.perfpin.agent.impl;

import io.perfpin.cpu.Placement;
import io.perfpin.registry.ThreadRegistry;
import net.bytebuddy.description.annotation.AnnotationList;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

/**
 * A running thread's class read for perfpin's annotations with byte-buddy, after an attach, for a class whose class file
 * names them ({@link RunningThreads}): linking this class loads byte-buddy's, so byte-buddy is asked for by name
 * ({@code OptionalLibrary}) before it is used.
 */
final class AnnotatedThreadClass {
    private AnnotatedThreadClass() {}

    /** Enrols {@code thread} as its class's annotations say; false when they say nothing or it was not enrolled. */
    static boolean enrol(ThreadRegistry registry, Thread thread, int tid, AnnotationValues values) {
        AnnotationList annotations = annotationsOf(thread.getClass());
        Placement placement = values.placement(TaskAnnotations.placement(annotations));
        return TaskAnnotations.present(annotations)
                && registry.enrol(thread, tid, values.events(TaskAnnotations.events(annotations)), placement);
    }

    /** Read from the class file, so the annotation classes are not loaded on the agent's account. */
    private static AnnotationList annotationsOf(Class<?> type) {
        TypePool pool = TypePool.Default.of(ClassFileLocator.ForClassLoader.of(type.getClassLoader()));
        TypePool.Resolution resolution = pool.describe(type.getName());
        return resolution.isResolved() ? resolution.resolve().getDeclaredAnnotations() : new AnnotationList.Empty();
    }
}
