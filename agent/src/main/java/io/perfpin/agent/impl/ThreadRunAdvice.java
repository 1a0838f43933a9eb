package io.perfpin.agent.impl;

import io.perfpin.agent.bootstrap.ThreadHooks;
import net.bytebuddy.asm.Advice;

/** Woven into {@code Thread.run()} and every override of it: a thread's start and end. */
final class ThreadRunAdvice {
    private ThreadRunAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static boolean enter(@Advice.This Thread thread) {
        return ThreadHooks.runStarting(thread);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.This Thread thread, @Advice.Enter boolean outermost) {
        if (outermost) {
            ThreadHooks.runEnded(thread);
        }
    }
}
