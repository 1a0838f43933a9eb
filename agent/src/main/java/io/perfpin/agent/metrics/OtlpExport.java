package io.perfpin.agent.metrics;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.export.ExportSnapshot;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.stats.AgentNotice;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The OpenTelemetry export's thread, {@code perfpin-otlp}: everything of OpenTelemetry's ({@link OtlpInstruments})
 * is built and runs there, every {@code otlp-interval}, so the application's start pays for none of it and no
 * OpenTelemetry class loads before it starts. At close, the final totals are sent within a few seconds.
 */
final class OtlpExport implements AutoCloseable {
    private final OtlpEndpoint endpoint;
    private final long intervalNanos;
    private final Supplier<ExportSnapshot> snapshots;
    private final DescriptorBudget budget;
    private final Consumer<AgentNotice> notices;
    private final ScheduledExecutorService thread;
    /** Set on {@link #thread} once built; null before, or if that failed. */
    private OtlpInstruments instruments;
    private volatile int eventsSeen;

    private OtlpExport(OtlpEndpoint endpoint, long intervalNanos, Supplier<ExportSnapshot> snapshots,
                       DescriptorBudget budget, Consumer<AgentNotice> notices) {
        this.endpoint = endpoint;
        this.intervalNanos = intervalNanos;
        this.snapshots = snapshots;
        this.budget = budget;
        this.notices = notices;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread t = new Thread(task, "perfpin-otlp");
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.thread = executor;
    }

    static OtlpExport start(OtlpEndpoint endpoint, long intervalNanos, Supplier<ExportSnapshot> snapshots,
                            DescriptorBudget budget, Consumer<AgentNotice> notices) {
        OtlpExport export = new OtlpExport(endpoint, intervalNanos, snapshots, budget, notices);
        export.thread.execute(export::build);
        return export;
    }

    private void build() {
        try {
            instruments = new OtlpInstruments(endpoint, snapshots, budget, notices);
            thread.scheduleWithFixedDelay(this::export, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException | LinkageError e) {
            notices.accept(AgentNotice.failure("cannot export metrics to the OTLP receiver at " + endpoint, e,
                    "counting goes on"));
        }
    }

    private void export() {
        try {
            instruments.export();
        } catch (RuntimeException e) {
            // a throw would end the schedule: said once, and the next interval tries again
            notices.accept(AgentNotice.failure("exporting metrics to the OTLP receiver at " + endpoint + " failed", e));
        }
    }

    /** Called on each tick: a snapshot with new events gets their instruments, on the export's thread. */
    void published(ExportSnapshot snapshot) {
        int events = snapshot.events().size();
        if (events > eventsSeen) {
            eventsSeen = events;
            thread.execute(() -> {
                if (instruments != null) {
                    instruments.instrumentEvents();
                }
            });
        }
    }

    /** Sends the final totals (the registry has closed), within a few seconds, and ends the export's thread. */
    @Override
    public void close() {
        try {
            thread.submit(() -> {
                if (instruments != null) {
                    instruments.shutdown();
                }
            }).get(OtlpInstruments.TIMEOUT_SECONDS + 1, TimeUnit.SECONDS);
        } catch (Exception e) {
            // the collector did not answer in time: the totals so far were sent, or said as failed
        } finally {
            thread.shutdownNow();
        }
    }
}
