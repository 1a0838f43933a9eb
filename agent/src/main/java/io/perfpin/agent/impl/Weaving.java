package io.perfpin.agent.impl;

import static net.bytebuddy.matcher.ElementMatchers.any;
import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.is;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isAnnotatedWith;
import static net.bytebuddy.matcher.ElementMatchers.isSubTypeOf;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.perfpin.stats.AgentNotice;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.QuietAgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

/**
 * What the agent weaves, with byte-buddy advice only (no new fields or methods, so classes already loaded
 * are retransformed in place, and {@link #reset} takes it all back):
 * <ul>
 *   <li>{@code Thread.run()} and every override: a thread's start and end, for the name rules, where the JVM
 *       cannot report them itself (without perfpin's C library);</li>
 *   <li>{@code run()}/{@code call()} of a Runnable, Callable or Thread subclass annotated {@code @Pinned} or
 *       {@code @Counted}: the task's thread is pinned and counted while it runs;</li>
 *   <li>each method annotated {@code @Counted}: every invocation measured on its thread.</li>
 * </ul>
 * The agent's own classes, and byte-buddy's, are never woven.
 */
final class Weaving {
    private Weaving() {}

    /**
     * Weaves {@code Thread.run()} and the annotations, as classes load and in those already loaded: where the JVM
     * cannot report thread starts itself ({@code ThreadLifecycleEvents} needs the JNI backend).
     */
    static ResettableClassFileTransformer install(
            Instrumentation instrumentation, AnnotationValues values, MethodCounting methods) {
        return builder(values, methods, true).installOn(instrumentation);
    }

    /** The annotations' weaving as a transformer that is not installed: {@link WeavingOnDemand} calls it. */
    static ClassFileTransformer annotationsOnly(AnnotationValues values, MethodCounting methods) {
        return builder(values, methods, false).makeRaw();
    }

    private static AgentBuilder builder(AnnotationValues values, MethodCounting methods, boolean threadRun) {
        AgentBuilder builder = new QuietAgentBuilder()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(new FailureReport())
                .ignore(nameStartsWith("net.bytebuddy.").or(isSynthetic()).or(jdkExceptThreads()))
                .or(any(), is(Weaving.class.getClassLoader()));
        if (threadRun) {
            Advice advice = Advice.to(ThreadRunAdvice.class);
            builder = builder.type(
                            is(Thread.class).or(declaresMethod(runOrCall("run")).and(isSubTypeOf(Thread.class))))
                    .transform((b, type, loader, module, domain) -> b.visit(advice.on(runOrCall("run"))));
        }
        return builder.type(isAnnotatedWith(named(TaskAnnotations.PINNED))
                        .or(isAnnotatedWith(named(TaskAnnotations.COUNTED)))
                        .and(isSubTypeOf(Runnable.class)
                                .or(isSubTypeOf(Callable.class))
                                .or(isSubTypeOf(Thread.class))))
                .transform((b, type, loader, module, domain) -> task(b, type, values))
                .type(declaresMethod(isAnnotatedWith(named(TaskAnnotations.COUNTED))))
                .transform((b, type, loader, module, domain) -> countedMethods(b, type, values, methods));
    }

    /**
     * The JDK's own classes, which never carry perfpin's annotations, but for the thread classes whose run()
     * name rules must see: Thread itself, and ForkJoinWorkerThread, whose run() does not call Thread's.
     * Matching the JDK's thousands of classes was most of the agent's start-up.
     */
    private static net.bytebuddy.matcher.ElementMatcher.Junction<TypeDescription> jdkExceptThreads() {
        return nameStartsWith("java.")
                .or(nameStartsWith("javax."))
                .or(nameStartsWith("jdk."))
                .or(nameStartsWith("sun."))
                .or(nameStartsWith("com.sun."))
                .and(not(named("java.lang.Thread").or(named("java.util.concurrent.ForkJoinWorkerThread"))));
    }

    /** Takes every woven class back to its original code. */
    static void reset(Instrumentation instrumentation, ResettableClassFileTransformer transformer) {
        transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
    }

    private static net.bytebuddy.matcher.ElementMatcher.Junction<MethodDescription> runOrCall(String name) {
        return named(name).and(takesArguments(0)).and(not(isAbstract()));
    }

    private static DynamicType.Builder<?> task(
            DynamicType.Builder<?> builder, TypeDescription type, AnnotationValues values) {
        String placement = TaskAnnotations.placement(type.getDeclaredAnnotations());
        if (!placement.isEmpty()) {
            values.pinnedTaskWoven();
        }
        Advice advice = Advice.withCustomMapping()
                .bind(TaskAdvice.Placement.class, placement)
                .bind(TaskAdvice.Events.class, TaskAnnotations.events(type.getDeclaredAnnotations()))
                .to(TaskAdvice.class);
        return builder.visit(advice.on(runOrCall("run").or(runOrCall("call"))));
    }

    private static DynamicType.Builder<?> countedMethods(
            DynamicType.Builder<?> builder, TypeDescription type, AnnotationValues values, MethodCounting methods) {
        for (MethodDescription.InDefinedShape method : type.getDeclaredMethods()
                .filter(isAnnotatedWith(named(TaskAnnotations.COUNTED)).and(not(isAbstract())))) {
            int id = methods.register(
                    displayName(type, method), values.events(TaskAnnotations.events(method.getDeclaredAnnotations())));
            Advice advice = Advice.withCustomMapping()
                    .bind(CountedMethodAdvice.MethodId.class, id)
                    .to(CountedMethodAdvice.class);
            builder = builder.visit(advice.on(is(method)));
        }
        return builder;
    }

    /** {@code com.example.Matrix.multiply(double[][], double[][])}: what a user recognises in a report. */
    static String displayName(TypeDescription type, MethodDescription method) {
        return type.getName() + "." + method.getName()
                + method.getParameters().asTypeList().asErasures().stream()
                        .map(TypeDescription::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    /** A class that cannot be woven is reported once; it runs unchanged. */
    private static final class FailureReport extends AgentBuilder.Listener.Adapter {
        @Override
        public void onError(
                String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable throwable) {
            AgentLog.say(AgentNotice.failure("cannot weave " + typeName + ", it runs unchanged", throwable));
        }
    }
}
