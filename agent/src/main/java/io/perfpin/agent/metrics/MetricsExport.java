package io.perfpin.agent.metrics;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.event.EventList;
import io.perfpin.export.ExportedThreads;
import io.perfpin.export.OwnTaskClock;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.registry.RunningVirtualGroup;
import io.perfpin.registry.SampledThread;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.stats.AgentNotice;
import java.util.List;
import java.util.function.Consumer;

/**
 * The metrics exports the options asked for, fed by the registry's tick: each tick takes in the threads the
 * sampler has just read ({@link ExportedThreads}) and publishes a snapshot, which the Prometheus endpoint answers
 * scrapes with and the OpenTelemetry export collects. Nothing here runs unless an export was asked for, and
 * nothing that fails here stops the counting: it is said once.
 */
public final class MetricsExport implements ThreadRegistry.TickListener, AutoCloseable {
    private final ThreadRegistry registry;
    private final Syscalls syscalls;
    private final Consumer<AgentNotice> notices;
    private final ExportedThreads threads;
    private final PrometheusEndpoint prometheus;
    private final OtlpExport otlp;
    /** The sampler's own CPU time, opened on its first tick, on its thread. */
    private OwnTaskClock samplerClock;

    private boolean failed;

    private MetricsExport(
            MetricsOptions options, ThreadRegistry registry, Syscalls syscalls, Consumer<AgentNotice> notices) {
        this.registry = registry;
        this.syscalls = syscalls;
        this.notices = notices;
        this.threads = new ExportedThreads(
                options.exportThreads(), foldAfterNanos(options), text -> notices.accept(AgentNotice.info(text)));
        this.prometheus = options.prometheus() == null
                ? null
                : PrometheusEndpoint.start(options.prometheus(), threads::snapshot, registry.descriptors(), notices);
        try {
            this.otlp = options.otlp() == null
                    ? null
                    : OtlpExport.start(
                            options.otlp(),
                            options.otlpIntervalNanos(),
                            threads::snapshot,
                            registry.descriptors(),
                            notices);
        } catch (RuntimeException | Error e) {
            // the agent's start fails with it: the endpoint does not serve on without an agent
            if (prometheus != null) {
                prometheus.close();
            }
            throw e;
        }
    }

    /**
     * How long an ended thread's own series stays: the export's default, or two OTLP intervals where longer, so
     * that an export at any phase of its interval sends the final counts before the series folds into its group.
     */
    static long foldAfterNanos(MetricsOptions options) {
        // otlp-interval is at most a year: twice it is far from overflowing
        return Math.max(ExportedThreads.FOLD_AFTER_NANOS, options.otlp() == null ? 0 : 2 * options.otlpIntervalNanos());
    }

    /**
     * Starts the exports the options ask for, where they ask for some ({@link MetricsOptions#any}), and feeds them
     * from the registry's ticks.
     */
    public static MetricsExport start(
            MetricsOptions options, ThreadRegistry registry, Syscalls syscalls, Consumer<AgentNotice> notices) {
        MetricsExport export = new MetricsExport(options, registry, syscalls, notices);
        try {
            registry.onTick(export);
        } catch (RuntimeException | Error e) {
            export.close();
            throw e;
        }
        return export;
    }

    @Override
    public void threadsRead(List<? extends SampledThread> live, List<? extends SampledThread> finished) {
        if (!failed) {
            try {
                threads.update(live, finished);
            } catch (RuntimeException e) {
                stop(e);
            }
        }
    }

    @Override
    public void afterTick(long epochMillis, boolean finalPass, Consumer<String> record) {
        if (failed) {
            return;
        }
        try {
            if (samplerClock == null && !finalPass) {
                samplerClock = OwnTaskClock.ofCurrentThread(syscalls, registry.descriptors());
            }
            threads.publish(epochMillis, samplerClock == null ? Double.NaN : samplerClock.seconds());
            if (otlp != null) {
                otlp.published(threads.snapshot());
            }
        } catch (RuntimeException e) {
            stop(e);
        }
    }

    /**
     * Virtual threads that ended, each in its group's series ({@link ExportedThreads#addEndedVirtual}); on the
     * tick's thread, by a listener that runs before this one, so that this tick publishes them.
     */
    public void virtualEnded(List<? extends SampledThread> ended) {
        if (!failed) {
            try {
                ended.forEach(threads::addEndedVirtual);
            } catch (RuntimeException e) {
                stop(e);
            }
        }
    }

    /**
     * {@code members} virtual threads of {@code group} that ended with no record of their own, their final counts
     * summed, into the group's series ({@link ExportedThreads#addEndedVirtual(String, EventList, CounterSnapshot,
     * int)}); on the tick's thread, by a listener that runs before this one.
     */
    public void virtualFolded(String group, EventList events, CounterSnapshot counts, int members) {
        if (!failed) {
            try {
                threads.addEndedVirtual(group, events, counts, members);
            } catch (RuntimeException e) {
                stop(e);
            }
        }
    }

    /**
     * The groups of virtual threads with members running now, their totals so far, into their groups' series
     * ({@link ExportedThreads#runningVirtual}); on the tick's thread, by a listener that runs before this one.
     */
    public void virtualRunning(List<RunningVirtualGroup> groups) {
        if (!failed) {
            try {
                threads.runningVirtual(groups);
            } catch (RuntimeException e) {
                stop(e);
            }
        }
    }

    /** A failure of the export's own: the last snapshot stays published, and counting goes on. */
    private void stop(RuntimeException e) {
        failed = true;
        notices.accept(AgentNotice.failure("the metrics export stopped updating", e, "counting goes on"));
    }

    /** Stops the exports, after the registry's final tick: the OpenTelemetry export sends the final totals. */
    @Override
    public void close() {
        if (prometheus != null) {
            prometheus.close();
        }
        if (otlp != null) {
            otlp.close();
        }
        if (samplerClock != null) {
            samplerClock.close();
        }
    }
}
