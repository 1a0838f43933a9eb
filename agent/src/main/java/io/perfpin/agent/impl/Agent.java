package io.perfpin.agent.impl;

import io.perfpin.PerfpinDirectory;
import io.perfpin.agent.bootstrap.ThreadEvents;
import io.perfpin.agent.bootstrap.ThreadHooks;
import io.perfpin.agent.metrics.MetricsExport;
import io.perfpin.event.EventParser;
import io.perfpin.files.OwnedDirectory;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.ThreadLifecycleEvents;
import io.perfpin.registry.RegistryConfig;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsFile;
import io.perfpin.stats.StatsFileName;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.function.Supplier;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;

/**
 * One running agent: the registry that counts and publishes, the hooks that feed it, and the thread events and
 * weaving that call the hooks. {@link #close} (detach) undoes all of it; {@link #closeAtExit} writes the final
 * records. {@link AgentStart} starts it, and calls those two.
 */
final class Agent implements AutoCloseable {
    private final ThreadRegistry registry;
    private final Enrolment enrolment;
    private final MethodCounting methods;
    /** Null when no metrics export was asked for. */
    private final MetricsExport exports;
    /** Stops the thread events and takes back every woven class. */
    private final Runnable unweave;
    /** Null without a virtual= option, or where virtual threads cannot be counted. */
    private final VirtualThreads virtualThreads;

    private Agent(
            ThreadRegistry registry,
            Enrolment enrolment,
            MethodCounting methods,
            MetricsExport exports,
            Runnable unweave,
            VirtualThreads virtualThreads) {
        this.registry = registry;
        this.enrolment = enrolment;
        this.methods = methods;
        this.exports = exports;
        this.unweave = unweave;
        this.virtualThreads = virtualThreads;
    }

    /**
     * @param early what premain set up before the agent started on a thread of its own; null when it starts on the
     *     calling thread
     */
    static Agent start(
            AgentOptions options,
            EventParser parser,
            Syscalls syscalls,
            Instrumentation instrumentation,
            boolean attached,
            AgentStart.Early early)
            throws IOException {
        if (options.log() != null) {
            AgentLog.logTo(options.log()); // first: what the start says is in it
        }
        try {
            return startCounting(options, parser, syscalls, instrumentation, attached, early);
        } catch (IOException | RuntimeException | Error e) {
            // the [perfpin] line that says so comes after: the log keeps its stack trace, then lets its file go
            AgentLog.logOnly(AgentNotice.failure("the agent did not start", e));
            AgentLog.stopLogging();
            throw e;
        }
    }

    private static Agent startCounting(
            AgentOptions options,
            EventParser parser,
            Syscalls syscalls,
            Instrumentation instrumentation,
            boolean attached,
            AgentStart.Early early)
            throws IOException {
        RegistryConfig config = RegistryConfig.of(options.events())
                .withInterval(options.intervalNanos())
                .withJsonLines(options.out())
                .withDescriptors(options.descriptors())
                .withAgentOptions(options.text());
        ThreadRules rules = options.rules();
        if (!rules.pinsByName()) {
            config = config.withTopologyWhenAsked();
        }
        if (options.stats() != null) {
            config = config.withStatsFile(options.stats()); // a file the user named: one that fails is a bad option
        } else if (!options.statsOff()) {
            // the sampler makes the default one, while main() goes on: what premain must do it does first
            config = config.withStatsFileLater(new Supplier<Path>() {
                @Override
                public Path get() {
                    return defaultStatsFile();
                }
            });
        }
        ThreadRegistry registry;
        try {
            registry = ThreadRegistry.start(
                    syscalls, config, AgentLog.registrySink(), early != null ? early.ahead() : null);
        } catch (IOException e) {
            // a file the options name that cannot be written is a bad option: the agent stays off
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        AgentLog.publishTo(registry, options.quiet());
        if (options.out() != null && !options.out().equals(registry.recordingFile())) {
            AgentLog.info("recording to " + registry.recordingFile() + ": another process writes " + options.out()
                    + ", as the JVM that started this one with the same options does (a JMH fork's); perfpin report "
                    + options.out() + " reads both");
        }
        // Whatever fails from here on takes back what was started before it: an agent that did not start leaves the
        // JVM as it found it, with no sampler, descriptor or hook of its own, since no detach can reach it.
        MethodCounting methods;
        MetricsExport exports = null;
        Enrolment enrolment = null;
        VirtualThreads virtualThreads = null;
        AnnotationValues values;
        Runnable unweave;
        try {
            methods = new MethodCounting(syscalls, options.events(), registry.descriptors());
            registry.onTick(new AgentTick(
                    methods, options.events(), System.currentTimeMillis(), options.text(), options.out() != null));
            if (options.virtual() != null) {
                // before the export's listener: the tick that writes a virtual thread's record exports it too
                virtualThreads = VirtualThreads.start(
                        syscalls, options.virtual(), options.virtualMax(), options.events(), registry);
                if (virtualThreads != null) {
                    registry.onTick(virtualThreads);
                }
            }
            // asked here, not by the export: its notices' method reference is then linked only where it exports
            if (options.metrics().any()) {
                exports = MetricsExport.start(options.metrics(), registry, syscalls, AgentLog::say);
            }
            if (virtualThreads != null && exports != null) {
                virtualThreads.exportTo(exports);
            }
            values = early != null ? early.values() : new AnnotationValues(parser);
            values.pinsGoTo(registry);
            enrolment = new Enrolment(registry, rules, values, methods, syscalls);
            ThreadHooks.install(enrolment);
            unweave = weave(instrumentation, syscalls, values, methods, attached, registry, early);
        } catch (RuntimeException | Error e) {
            if (enrolment != null) {
                ThreadHooks.uninstall(enrolment);
            }
            closeCounting(registry, exports, virtualThreads, false);
            AgentLog.publishTo(null, false);
            throw e;
        }
        Agent agent = new Agent(registry, enrolment, methods, exports, unweave, virtualThreads);
        try {
            if (attached) {
                RunningThreads.enrolRunning(syscalls, registry, rules, values);
            } else if (early == null) {
                // premain runs on the thread that will run main(): it starts counting here, as a started thread would
                enrolment.runStarting(Thread.currentThread());
            }
        } catch (RuntimeException | Error e) {
            agent.close();
            throw e;
        }
        return agent;
    }

    /**
     * This JVM's file in the user's perfpin directory, named by its pid and pid namespace ({@link StatsFileName}),
     * after removing the files of JVMs that are gone. Null, said
     * once, when that directory cannot be used: the agent then counts and records without a live view.
     */
    private static Path defaultStatsFile() {
        try {
            OwnedDirectory jvms = PerfpinDirectory.open(PerfpinDirectory.JVMS);
            StatsFile.removeStale(jvms);
            return jvms.resolve(StatsFileName.ofThisProcess().name());
        } catch (IOException | RuntimeException e) {
            AgentLog.info("no live view (perfpin top, attach and run show nothing): " + e.getMessage()
                    + "; counting and out= recording go on");
            return null;
        }
    }

    /**
     * How threads are seen to start: with perfpin's C library the JVM reports every thread's start and end
     * itself (JVMTI), the library enrolling those it can with no Java on them, and only annotated classes are woven,
     * byte-buddy loading when the first one appears (in the background, after an attach, for the classes already
     * loaded). Without it, Thread.run() is woven too, and byte-buddy loads now. A start in the background finds the
     * events on and the weaving in place already ({@link AgentStart}).
     */
    private static Runnable weave(
            Instrumentation instrumentation,
            Syscalls syscalls,
            AnnotationValues values,
            MethodCounting methods,
            boolean attached,
            ThreadRegistry registry,
            AgentStart.Early early) {
        if (early != null || ThreadLifecycleEvents.enable(syscalls, ThreadHooks.class) == 0) {
            WeavingOnDemand onDemand = early != null ? early.onDemand() : null;
            try {
                // and with the library's enrolment a thread's start runs no Java at all, but when the rules say to
                registry.enrolInC(ThreadHooks.class);
                if (onDemand == null) {
                    onDemand = WeavingOnDemand.install(instrumentation, values, new Supplier<MethodCounting>() {
                        @Override
                        public MethodCounting get() {
                            return methods;
                        }
                    });
                }
                if (attached) {
                    WeavingOnDemand weaving = onDemand;
                    Thread weaver = new Thread(() -> weaving.weaveLoadedOnce(instrumentation), "perfpin-weaver");
                    weaver.setDaemon(true);
                    weaver.start(); // no thread to be had (a container at its pids limit) fails the start
                }
            } catch (RuntimeException | Error e) {
                // a start that fails leaves the JVM as it found it: no thread events, no transformer; what premain
                // set up before a start in the background, AgentStart takes back
                if (early == null) {
                    ThreadLifecycleEvents.disable(syscalls);
                    if (onDemand != null) {
                        onDemand.reset(instrumentation);
                    }
                }
                throw e;
            }
            WeavingOnDemand installed = onDemand;
            return new Runnable() {
                @Override
                public void run() {
                    ThreadLifecycleEvents.disable(syscalls);
                    installed.reset(instrumentation);
                }
            };
        }
        WeavingOnDemand.requireByteBuddy();
        ResettableClassFileTransformer transformer = Weaving.install(instrumentation, values, methods);
        return () -> Weaving.reset(instrumentation, transformer);
    }

    /** The thread events' handler: what the hooks call while the agent runs. */
    ThreadEvents events() {
        return enrolment;
    }

    /** What the weaving of {@code @Counted} methods registers them with. */
    MethodCounting methods() {
        return methods;
    }

    /**
     * At the JVM's exit: the final records, waiting for the sampler's tick at most {@link
     * ThreadRegistry#EXIT_WAIT_MILLIS} ms.
     */
    void closeAtExit() {
        closeCounting(registry, exports, virtualThreads, true);
    }

    /**
     * The final records, then the exports' last totals, which the registry's final tick published. Virtual threads
     * stop first: the final tick writes the records of those that ended before. Each step runs whatever the one before
     * threw: a failure of one never leaves another's descriptors open or pins in place.
     */
    private static void closeCounting(
            ThreadRegistry registry, MetricsExport exports, VirtualThreads virtualThreads, boolean atExit) {
        Throwable failure = null;
        if (virtualThreads != null) {
            try {
                virtualThreads.close();
            } catch (RuntimeException | Error e) {
                failure = e;
            }
        }
        boolean closed = true;
        try {
            if (atExit) {
                closed = registry.closeAtExit();
            } else {
                registry.close();
            }
        } catch (RuntimeException | Error e) {
            failure = withSuppressed(failure, e);
        }
        // an exit that gave up waiting for the registry has no last totals to send, and a detach may be closing them
        if (exports != null && closed) {
            try {
                exports.close();
            } catch (RuntimeException | Error e) {
                failure = withSuppressed(failure, e);
            }
        }
        rethrow(failure);
    }

    /** Detach: no more enrolments, every class back to its code, final records, pins restored, files closed. */
    @Override
    public void close() {
        ThreadHooks.uninstall(enrolment);
        // caught step by step rather than run as a list of steps: linking lambdas on the exit path cost more
        Throwable failure = null;
        try {
            unweave.run();
        } catch (RuntimeException | Error e) {
            failure = e;
        }
        try {
            methods.close();
        } catch (RuntimeException | Error e) {
            failure = withSuppressed(failure, e);
        }
        try {
            closeCounting(registry, exports, virtualThreads, false);
        } catch (RuntimeException | Error e) {
            failure = withSuppressed(failure, e);
        }
        AgentLog.publishTo(null, false);
        AgentLog.stopLogging(); // last: what the final records said is in it
        rethrow(failure);
    }

    /** The first failure, with {@code later} suppressed in it. */
    private static Throwable withSuppressed(Throwable first, Throwable later) {
        if (first == null) {
            return later;
        }
        first.addSuppressed(later);
        return first;
    }

    private static void rethrow(Throwable failure) {
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
    }
}
