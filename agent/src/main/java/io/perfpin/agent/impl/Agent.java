package io.perfpin.agent.impl;

import io.perfpin.PerfpinDirectory;
import io.perfpin.agent.bootstrap.ThreadHooks;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.registry.RegistryConfig;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.stats.StatsFile;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;

import java.io.IOException;
import java.nio.file.Path;
import java.lang.instrument.Instrumentation;

/**
 * One running agent: the registry that counts and publishes, the hooks that feed it, the weaving, and the
 * shutdown hook that writes the final records. {@link #close} (detach) undoes all of it.
 */
final class Agent implements AutoCloseable {
    private final Instrumentation instrumentation;
    private final ThreadRegistry registry;
    private final Enrolment enrolment;
    private final MethodCounting methods;
    private final ResettableClassFileTransformer transformer;
    private final Thread shutdownHook;

    private Agent(Instrumentation instrumentation, ThreadRegistry registry, Enrolment enrolment,
                  MethodCounting methods, ResettableClassFileTransformer transformer) {
        this.instrumentation = instrumentation;
        this.registry = registry;
        this.enrolment = enrolment;
        this.methods = methods;
        this.transformer = transformer;
        this.shutdownHook = new Thread(registry::close, "perfpin-shutdown");
    }

    static Agent start(AgentOptions options, EventParser parser, Instrumentation instrumentation, boolean attached)
            throws IOException {
        Syscalls syscalls = Backends.syscalls();
        Path stats = options.statsOff() ? null : options.stats() != null ? options.stats()
                : PerfpinDirectory.statsFile(ProcessHandle.current().pid());
        if (stats != null && options.stats() == null) {
            StatsFile.removeStale(stats.getParent());
        }
        RegistryConfig config = RegistryConfig.of(options.events()).withInterval(options.intervalNanos())
                .withJsonLines(options.out()).withStatsFile(stats);
        ThreadRegistry registry = ThreadRegistry.start(syscalls, config, AgentLog::warn);
        MethodCounting methods = new MethodCounting(syscalls, options.events());
        registry.onTick((now, finalPass, record) -> methods.publish(now, finalPass, record));
        AnnotationValues values = new AnnotationValues(parser);
        ThreadRules rules = options.rules();
        Enrolment enrolment = new Enrolment(registry, rules, values, methods);
        ThreadHooks.install(enrolment);
        ResettableClassFileTransformer transformer;
        try {
            transformer = Weaving.install(instrumentation, values, methods);
        } catch (RuntimeException | Error e) {
            ThreadHooks.uninstall(enrolment);
            registry.close();
            throw e;
        }
        Agent agent = new Agent(instrumentation, registry, enrolment, methods, transformer);
        if (attached) {
            try {
                RunningThreads.enrol(registry, rules, values);
            } catch (RuntimeException e) {
                AgentLog.warn("cannot enrol the threads already running (" + e.getMessage() + "); threads that start"
                        + " from now on are enrolled");
            }
        } else {
            // premain runs on the thread that will run main(): it starts counting here, as a started thread would
            enrolment.runStarting(Thread.currentThread());
        }
        Runtime.getRuntime().addShutdownHook(agent.shutdownHook);
        return agent;
    }

    /** Detach: no more enrolments, every class back to its code, final records, pins restored, files closed. */
    @Override
    public void close() {
        ThreadHooks.uninstall(enrolment);
        try {
            Weaving.reset(instrumentation, transformer);
        } finally {
            methods.close();
            registry.close();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs or ran
            }
        }
    }
}
