package io.perfpin.agent.metrics;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.export.ExportSnapshot;
import io.perfpin.nativeio.OptionalLibrary;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.stats.AgentNotice;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The OpenTelemetry export's thread, {@code perfpin-otlp}: everything of OpenTelemetry's ({@link OtlpInstruments})
 * is built and runs there, every {@code otlp-interval}, so the application's start pays for none of it and no
 * OpenTelemetry class loads before it starts. At close, the final totals are sent, waited for at most
 * {@value #CLOSE_MILLIS} ms: the JVM's exit, or a detach, never waits longer on a collector.
 */
final class OtlpExport implements AutoCloseable {
    /** How long exit or detach waits for the final totals to be taken, an export in flight included. */
    static final long CLOSE_MILLIS = 1000;

    private final OtlpEndpoint endpoint;
    private final long intervalNanos;
    private final Supplier<ExportSnapshot> snapshots;
    private final DescriptorBudget budget;
    private final Consumer<AgentNotice> notices;
    private final ScheduledExecutorService thread;
    /** Set on {@link #thread} once built; null before, or if that failed. */
    private OtlpInstruments instruments;

    private volatile int eventsSeen;

    private OtlpExport(
            OtlpEndpoint endpoint,
            long intervalNanos,
            Supplier<ExportSnapshot> snapshots,
            DescriptorBudget budget,
            Consumer<AgentNotice> notices) {
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

    static OtlpExport start(
            OtlpEndpoint endpoint,
            long intervalNanos,
            Supplier<ExportSnapshot> snapshots,
            DescriptorBudget budget,
            Consumer<AgentNotice> notices) {
        OtlpExport export = new OtlpExport(endpoint, intervalNanos, snapshots, budget, notices);
        export.thread.execute(export::build);
        return export;
    }

    private void build() {
        try {
            // asked before any class of OpenTelemetry's is linked (OptionalLibrary)
            String why = OptionalLibrary.unavailable("io.opentelemetry.sdk.metrics.SdkMeterProvider");
            if (why != null) {
                throw new IllegalStateException("OpenTelemetry: " + why);
            }
            instruments = new OtlpInstruments(endpoint, snapshots, budget, notices);
            thread.scheduleWithFixedDelay(this::export, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException | Error e) {
            failed("cannot export metrics to the OTLP receiver at " + endpoint, e, "counting goes on");
        }
    }

    private void export() {
        try {
            instruments.export();
        } catch (RuntimeException | Error e) {
            // a throw, an OutOfMemoryError's too, would end the schedule for good: said once, and the next interval
            // tries again
            failed(
                    "exporting metrics to the OTLP receiver at " + endpoint + " failed",
                    e,
                    "the next export tries again");
        }
    }

    /** Called on each tick: a snapshot with new events gets their instruments, on the export's thread. */
    void published(ExportSnapshot snapshot) {
        int events = snapshot.events().size();
        if (events > eventsSeen) {
            eventsSeen = events;
            thread.execute(() -> {
                try {
                    if (instruments != null) {
                        instruments.instrumentEvents();
                    }
                } catch (RuntimeException | Error e) {
                    failed("adding the instruments of new events to the OTLP export failed", e, "the others export");
                }
            });
        }
    }

    /**
     * Says what failed on the export's thread, and throws nothing, whatever saying it meets (no heap left to build the
     * notice): the thread and its schedule go on.
     */
    private void failed(String what, Throwable e, String after) {
        try {
            notices.accept(AgentNotice.failure(what, e, after));
        } catch (RuntimeException | Error unsaid) {
            // the export goes on
        }
    }

    /**
     * Sends the final totals (the registry has closed), waiting at most {@value #CLOSE_MILLIS} ms, and ends the
     * export's thread: a collector that has not answered by then is said once, and the thread's interrupt closes
     * the connection it waits on (the sender's channel is interruptible), so the thread ends too.
     */
    @Override
    public void close() {
        try {
            Future<?> last = thread.submit(() -> {
                if (instruments != null) {
                    instruments.shutdown();
                }
            });
            last.get(CLOSE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            notices.accept(AgentNotice.refused("the OTLP receiver at " + endpoint + " did not take the final totals"
                    + " within " + CLOSE_MILLIS + " ms: perfpin stopped waiting for it, and they were not sent"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RuntimeException e) {
            // the final export failed on its own: the sender said so, once
        } finally {
            thread.shutdownNow();
        }
    }
}
