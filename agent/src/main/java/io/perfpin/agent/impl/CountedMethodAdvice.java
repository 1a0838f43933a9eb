package io.perfpin.agent.impl;

import io.perfpin.agent.bootstrap.ThreadHooks;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import net.bytebuddy.asm.Advice;

/** Woven into each {@code @Counted} method: the thread's own counters are read on entry and exit. */
final class CountedMethodAdvice {
    /** Binds the id {@link MethodCounting#register} gave the method. */
    @Retention(RetentionPolicy.RUNTIME)
    @interface MethodId {}

    private CountedMethodAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@MethodId int method) {
        return ThreadHooks.methodEntering(method);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@MethodId int method, @Advice.Enter Object token) {
        ThreadHooks.methodExited(method, token);
    }
}
