package io.perfpin.agent.impl;

import io.perfpin.agent.bootstrap.ThreadHooks;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code run()}/{@code call()} of a {@code @Pinned}/{@code @Counted} task: its thread is pinned
 * and counted while the task runs. The annotation values are constants baked in when the class is woven, so
 * the annotations are never read by reflection.
 */
final class TaskAdvice {
    /** Binds the {@code @Pinned} value. */
    @Retention(RetentionPolicy.RUNTIME)
    @interface Placement {}

    /** Binds the {@code @Counted} values, joined by commas. */
    @Retention(RetentionPolicy.RUNTIME)
    @interface Events {}

    private TaskAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Placement String placement, @Events String events) {
        return ThreadHooks.taskStarting(placement, events);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object token) {
        ThreadHooks.taskEnded(token);
    }
}
