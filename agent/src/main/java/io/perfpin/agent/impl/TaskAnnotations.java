package io.perfpin.agent.impl;

import static net.bytebuddy.matcher.ElementMatchers.annotationType;
import static net.bytebuddy.matcher.ElementMatchers.named;

import net.bytebuddy.description.annotation.AnnotationList;

/**
 * {@code @Pinned} and {@code @Counted} as the class file declares them, matched by name: reading them through
 * byte-buddy's descriptions never loads the annotation classes.
 */
final class TaskAnnotations {
    static final String PINNED = "io.perfpin.annotations.Pinned";
    static final String COUNTED = "io.perfpin.annotations.Counted";

    private TaskAnnotations() {}

    /** The {@code @Pinned} value; empty when absent. */
    static String placement(AnnotationList annotations) {
        AnnotationList pinned = only(annotations, PINNED);
        return pinned.isEmpty() ? "" : pinned.getOnly().getValue("value").resolve(String.class);
    }

    /** The {@code @Counted} values joined by commas; empty when absent or empty (the agent's events). */
    static String events(AnnotationList annotations) {
        AnnotationList counted = only(annotations, COUNTED);
        return counted.isEmpty()
                ? ""
                : String.join(",", counted.getOnly().getValue("value").resolve(String[].class));
    }

    static boolean present(AnnotationList annotations) {
        return !only(annotations, PINNED).isEmpty()
                || !only(annotations, COUNTED).isEmpty();
    }

    private static AnnotationList only(AnnotationList annotations, String name) {
        return annotations.filter(annotationType(named(name)));
    }
}
