package io.perfpin.agent.metrics;

import io.perfpin.export.ExportSnapshot;
import io.perfpin.export.ExportedEvent;
import io.perfpin.nativeio.Backends;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link ExportSnapshot} as Prometheus metrics, written by Prometheus client_java's own text and OpenMetrics
 * writers. Names follow Prometheus's conventions: {@code perfpin_thread_<event>_total} per counted event (the
 * clocks {@code perfpin_thread_task_clock_seconds_total}), {@code perfpin_thread_coverage_ratio} per multiplexed
 * event while below 1, and perfpin's health, {@code perfpin_threads_enrolled}, {@code perfpin_threads_not_counted},
 * {@code perfpin_threads_finished_total}, {@code perfpin_series_dropped_total},
 * {@code perfpin_sampler_task_clock_seconds_total}; in tests on a simulated PMU, {@code perfpin_simulated_pmu_info}
 * naming it. A group's series has
 * the label {@code thread_group}; a thread with a series of its own also {@code thread} and {@code cpu} (its CPU
 * list).
 */
final class PrometheusExposition {
    static final String GROUP = "thread_group";
    static final String THREAD = "thread";
    static final String CPU = "cpu";
    static final String EVENT = "event";
    private static final ExpositionFormatWriter TEXT = PrometheusTextFormatWriter.create();
    private static final ExpositionFormatWriter OPEN_METRICS = OpenMetricsTextFormatWriter.create();

    private PrometheusExposition() {}

    /** OpenMetrics when the {@code Accept} header asks for it (as Prometheus does), else the text format 0.0.4. */
    static ExpositionFormatWriter writerFor(String accept) {
        return accept != null && OPEN_METRICS.accepts(accept) ? OPEN_METRICS : TEXT;
    }

    static MetricSnapshots of(ExportSnapshot snapshot) {
        List<MetricSnapshot> metrics = new ArrayList<>();
        List<ExportedEvent> events = snapshot.events();
        GaugeSnapshot.Builder coverage = GaugeSnapshot.builder()
                .name("perfpin_thread_coverage_ratio")
                .help("Time each event was counted over the time it was enabled, over the series' threads, where"
                        + " below 1: the kernel multiplexed it, and its total was extrapolated")
                .unit(Unit.RATIO);
        boolean anyCoverage = false;
        for (int e = 0; e < events.size(); e++) {
            ExportedEvent event = events.get(e);
            CounterSnapshot.Builder counter = CounterSnapshot.builder()
                    .name("perfpin_thread_" + event.baseName() + (event.seconds() ? "_seconds" : ""))
                    .help("The kernel's count of " + event.event() + " for the threads of the series, since each was"
                            + " enrolled" + (event.seconds() ? ", in seconds" : ""));
            if (event.seconds()) {
                counter.unit(Unit.SECONDS);
            }
            boolean any = false;
            for (ExportSnapshot.Series series : snapshot.series()) {
                double total = series.total(e);
                if (!Double.isNaN(total)) {
                    any = true;
                    counter.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(labels(series))
                            .value(total)
                            .build());
                }
                // NaN unless the event was multiplexed here (ExportSnapshot.Series#coverage)
                if (!Double.isNaN(series.coverage(e))) {
                    anyCoverage = true;
                    coverage.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                            .labels(labels(series).add(EVENT, event.event()))
                            .value(series.coverage(e))
                            .build());
                }
            }
            if (any) {
                metrics.add(counter.build());
            }
        }
        if (anyCoverage) {
            metrics.add(coverage.build());
        }
        metrics.add(gauge(
                "perfpin_threads_enrolled", "Threads perfpin counts now, counted or not", snapshot.threadsEnrolled()));
        metrics.add(gauge(
                "perfpin_threads_not_counted",
                "Threads perfpin enrolled that hold no counter, for want of" + " file descriptors (agent option fds=)",
                snapshot.threadsNotCounted()));
        metrics.add(CounterSnapshot.builder()
                .name("perfpin_threads_finished")
                .help("Threads that ended or left since the export started; their counts stay in their groups'"
                        + " series")
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .value(snapshot.threadsFinished())
                        .build())
                .build());
        metrics.add(CounterSnapshot.builder()
                .name("perfpin_series_dropped")
                .help("Series the bounds left out: a thread counted in its group's series instead of its own, or in"
                        + " the group '(other)' instead of its group's")
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .value(snapshot.seriesDropped())
                        .build())
                .build());
        String simulated = Backends.simulatedPmu();
        if (simulated != null) {
            metrics.add(InfoSnapshot.builder()
                    .name("perfpin_simulated_pmu")
                    .help("The hardware counts of these series come from a simulated PMU, made from each thread's"
                            + " task-clock for tests: not a measurement")
                    .dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder()
                            .labels(Labels.of("pmu", simulated))
                            .build())
                    .build());
        }
        if (!Double.isNaN(snapshot.samplerSeconds())) {
            metrics.add(CounterSnapshot.builder()
                    .name("perfpin_sampler_task_clock_seconds")
                    .unit(Unit.SECONDS)
                    .help("CPU time of perfpin's sampler thread, which reads every counted thread at each tick")
                    .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .value(snapshot.samplerSeconds())
                            .build())
                    .build());
        }
        return new MetricSnapshots(metrics);
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .value(value)
                        .build())
                .build();
    }

    private static Labels labels(ExportSnapshot.Series series) {
        return series.thread() == null
                ? Labels.of(GROUP, series.group())
                : Labels.of(GROUP, series.group(), THREAD, series.thread(), CPU, series.cpus());
    }
}
