package io.perfpin.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Counts processor and scheduler events.
 *
 * <p>On a {@code Runnable}, {@code Callable} or {@code Thread} subclass: counts the thread that runs it for
 * its whole life. On a method: measures each invocation on the calling thread and keeps, per method, the
 * number of calls and per event the total, mean, p50 and p99.
 *
 * <p>Without the perfpin agent this annotation does nothing.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Counted {
    /**
     * Event names and presets, as {@code perfpin events} lists them: for example {@code {"ipc", "tlb"}}
     * or {@code {"task-clock", "page-faults"}}. Empty means the agent's configured events.
     */
    String[] value() default {};
}
