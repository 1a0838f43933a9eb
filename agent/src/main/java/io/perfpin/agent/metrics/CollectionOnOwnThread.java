package io.perfpin.agent.metrics;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import java.util.Collection;
import java.util.concurrent.TimeUnit;

/**
 * The SDK's metric reader for the agent: it collects and exports when the export's own thread calls
 * {@link #collectAndExport}. The SDK's periodic reader would do the same on a thread it starts itself
 * ({@code PeriodicMetricReader-worker}), which the agent would count as one of the application's.
 */
final class CollectionOnOwnThread implements MetricReader {
    private final MetricExporter exporter;
    private final long timeoutSeconds;
    private volatile CollectionRegistration registration = CollectionRegistration.noop();

    CollectionOnOwnThread(MetricExporter exporter, long timeoutSeconds) {
        this.exporter = exporter;
        this.timeoutSeconds = timeoutSeconds;
    }

    @Override
    public void register(CollectionRegistration registration) {
        this.registration = registration;
    }

    /** Collects every instrument and exports the result, waiting at most the timeout for the exporter. */
    void collectAndExport() {
        Collection<MetricData> metrics = registration.collectAllMetrics();
        if (!metrics.isEmpty()) {
            exporter.export(metrics).join(timeoutSeconds, TimeUnit.SECONDS);
        }
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
        return exporter.getAggregationTemporality(instrumentType);
    }

    @Override
    public CompletableResultCode forceFlush() {
        collectAndExport();
        return CompletableResultCode.ofSuccess();
    }

    /** Exports the final totals, then shuts the exporter down. */
    @Override
    public CompletableResultCode shutdown() {
        collectAndExport();
        registration = CollectionRegistration.noop();
        return exporter.shutdown();
    }
}
