package io.perfpin.agent.metrics;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.resources.Resource;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.export.ExportSnapshot;
import io.perfpin.export.ExportedEvent;
import io.perfpin.nativeio.Backends;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.stats.AgentNotice;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The OpenTelemetry SDK's side of the export, built and used on the export's thread only
 * ({@link OtlpExport}): a meter provider whose asynchronous instruments read the last snapshot the sampler
 * published, collected by {@link CollectionOnOwnThread} and sent by the SDK's OTLP/HTTP exporter (through
 * {@link OtlpSender}) as cumulative sums.
 *
 * <p>Names follow OpenTelemetry's semantic conventions where they have one: the attribute {@code thread.name}, and
 * the style of {@code process.context_switches}: {@code perfpin.thread.<event>} per counted event (unit {@code s}
 * for the clocks, else {@code {event}}-style annotations), {@code perfpin.thread.coverage} (unit 1, attribute
 * {@code perfpin.event}), {@code perfpin.threads.enrolled}, {@code perfpin.threads.not_counted},
 * {@code perfpin.threads.finished}, {@code perfpin.series.dropped}, {@code perfpin.sampler.task_clock}. Where the
 * conventions have none, perfpin's own: {@code perfpin.thread.group} and {@code perfpin.thread.cpus}. The resource
 * carries {@code process.pid}, and {@code perfpin.pmu} where a simulated PMU made the hardware counts (tests only:
 * {@code "simulated skylake"}). Attribute sets follow the rules of Prometheus's series
 * ({@link io.perfpin.export.ExportedThreads}): an ended thread's folds into its group's, and coverage is sent only
 * for a multiplexed event while below 1.
 */
final class OtlpInstruments {
    static final AttributeKey<String> THREAD_NAME = AttributeKey.stringKey("thread.name");
    static final AttributeKey<String> THREAD_GROUP = AttributeKey.stringKey("perfpin.thread.group");
    static final AttributeKey<String> THREAD_CPUS = AttributeKey.stringKey("perfpin.thread.cpus");
    static final AttributeKey<String> EVENT = AttributeKey.stringKey("perfpin.event");
    /** How long one export, or the last one at exit, may take: connecting, sending and the answer. */
    static final long TIMEOUT_SECONDS = 5;
    /** Units of the events that have a natural one, in OpenTelemetry's annotation style. */
    private static final Map<String, String> UNITS = Map.of(
            "context-switches",
            "{context_switch}",
            "cpu-migrations",
            "{migration}",
            "page-faults",
            "{fault}",
            "minor-faults",
            "{fault}",
            "major-faults",
            "{fault}",
            "cycles",
            "{cycle}",
            "instructions",
            "{instruction}");
    /**
     * The SDK's loggers (renamed with it when the agent is packaged), kept from saying anything on the
     * application's stderr: failures are the agent's to say, once. Held here, as java.util.logging keeps loggers
     * only weakly.
     */
    private static final Logger SDK_LOGGER =
            Logger.getLogger(OpenTelemetry.class.getPackageName().replaceFirst("\\.api$", ""));

    private final Supplier<ExportSnapshot> snapshots;
    private final SdkMeterProvider provider;
    private final CollectionOnOwnThread reader;
    private final Meter meter;
    /** How many of the snapshot's events have their instruments. */
    private int instrumented;

    /** Builds the SDK and the instruments of the events published so far. */
    OtlpInstruments(
            OtlpEndpoint endpoint,
            Supplier<ExportSnapshot> snapshots,
            DescriptorBudget budget,
            Consumer<AgentNotice> notices) {
        this.snapshots = snapshots;
        SDK_LOGGER.setLevel(Level.OFF);
        OtlpHttpMetricExporter exporter = OtlpHttpMetricExporter.builder()
                .setEndpoint(endpoint.toString())
                .setComponentLoader(OtlpSender.loader(endpoint, budget, notices))
                .setTimeout(Duration.ofSeconds(TIMEOUT_SECONDS))
                .setMeterProvider(MeterProvider::noop)
                .build();
        reader = new CollectionOnOwnThread(exporter, TIMEOUT_SECONDS);
        provider = SdkMeterProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(resource())))
                .registerMetricReader(reader)
                .build();
        meter = provider.get("perfpin");
        instrumentHealth();
        instrumentEvents();
    }

    /** Collects every instrument and sends the result. */
    void export() {
        reader.collectAndExport();
    }

    /** Sends the final totals and shuts the SDK down, within the timeout. */
    void shutdown() {
        provider.shutdown().join(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** Adds the instruments of the events the snapshot has that have none yet. */
    void instrumentEvents() {
        List<ExportedEvent> events = snapshots.get().events();
        for (; instrumented < events.size(); instrumented++) {
            int index = instrumented;
            ExportedEvent event = events.get(index);
            String name = "perfpin.thread." + event.baseName();
            String description = "The kernel's count of " + event.event() + " for the threads of the series, since"
                    + " each was enrolled";
            if (event.seconds()) {
                meter.counterBuilder(name)
                        .ofDoubles()
                        .setUnit("s")
                        .setDescription(description)
                        .buildWithCallback(m -> eachSeries(index, (total, attributes) -> m.record(total, attributes)));
            } else {
                meter.counterBuilder(name)
                        .setUnit(UNITS.getOrDefault(event.event(), "{event}"))
                        .setDescription(description)
                        .buildWithCallback(
                                m -> eachSeries(index, (total, attributes) -> m.record((long) total, attributes)));
            }
        }
    }

    private void instrumentHealth() {
        meter.gaugeBuilder("perfpin.thread.coverage")
                .setUnit("1")
                .setDescription("Time each event was counted over the time it was enabled, where below 1: the"
                        + " kernel multiplexed it, and its total was extrapolated")
                .buildWithCallback(m -> {
                    ExportSnapshot snapshot = snapshots.get();
                    for (int e = 0; e < snapshot.events().size(); e++) {
                        String event = snapshot.events().get(e).event();
                        for (ExportSnapshot.Series series : snapshot.series()) {
                            if (!Double.isNaN(series.coverage(e))) {
                                m.record(
                                        series.coverage(e),
                                        attributes(series).put(EVENT, event).build());
                            }
                        }
                    }
                });
        meter.upDownCounterBuilder("perfpin.threads.enrolled")
                .setUnit("{thread}")
                .setDescription("Threads perfpin counts now, counted or not")
                .buildWithCallback(m -> m.record(snapshots.get().threadsEnrolled()));
        meter.upDownCounterBuilder("perfpin.threads.not_counted")
                .setUnit("{thread}")
                .setDescription("Threads perfpin enrolled that hold no counter, for want of file descriptors")
                .buildWithCallback(m -> m.record(snapshots.get().threadsNotCounted()));
        meter.counterBuilder("perfpin.threads.finished")
                .setUnit("{thread}")
                .setDescription("Threads that ended or left since the export started")
                .buildWithCallback(m -> m.record(snapshots.get().threadsFinished()));
        meter.counterBuilder("perfpin.series.dropped")
                .setUnit("{series}")
                .setDescription("Series the bounds left out: a thread counted in its group's series instead of its"
                        + " own, or in the group '(other)' instead of its group's")
                .buildWithCallback(m -> m.record(snapshots.get().seriesDropped()));
        meter.counterBuilder("perfpin.sampler.task_clock")
                .ofDoubles()
                .setUnit("s")
                .setDescription("CPU time of perfpin's sampler thread, which reads every counted thread at each tick")
                .buildWithCallback(m -> {
                    double seconds = snapshots.get().samplerSeconds();
                    if (!Double.isNaN(seconds)) {
                        m.record(seconds);
                    }
                });
    }

    private interface SeriesValue {
        void record(double total, Attributes attributes);
    }

    private void eachSeries(int event, SeriesValue value) {
        for (ExportSnapshot.Series series : snapshots.get().series()) {
            double total = series.total(event);
            if (!Double.isNaN(total)) {
                value.record(total, attributes(series).build());
            }
        }
    }

    /** What every series shares: this JVM, and the simulated PMU where one counts (tests only). */
    private static Attributes resource() {
        AttributesBuilder resource = Attributes.builder()
                .put(
                        AttributeKey.longKey("process.pid"),
                        ProcessHandle.current().pid());
        String simulated = Backends.simulatedPmu();
        if (simulated != null) {
            resource.put(AttributeKey.stringKey("perfpin.pmu"), simulated);
        }
        return resource.build();
    }

    private static AttributesBuilder attributes(ExportSnapshot.Series series) {
        AttributesBuilder attributes = Attributes.builder().put(THREAD_GROUP, series.group());
        return series.thread() == null
                ? attributes
                : attributes.put(THREAD_NAME, series.thread()).put(THREAD_CPUS, series.cpus());
    }
}
