package io.perfpin.agent;

import static io.perfpin.agent.JavaagentIT.assertWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.perfpin.apps.Programs;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's OpenTelemetry export, received by an OTLP/HTTP receiver that decodes it with OpenTelemetry's own
 * protobuf classes: the instruments, their attributes and values, the final totals sent at exit, a collector
 * that is down, and one that hangs.
 */
class OtlpIT {
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    private static final int PAGES = 2048;
    private static final int CHURNED = 300;
    private static final String FAULTS = "perfpin.thread.page_faults";

    @Test
    void theAgentSendsEachGroupAndPinnedThreadAndItsFinalTotalsAtExit(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            try (AppJvm app = AppJvm.start(
                    JAVA,
                    "threads=worker-.*|churn-.*;pin=pinned-0@1;events=page-faults;" + "interval=100ms;out=" + out
                            + ";otlp=" + receiver.url() + ";otlp-interval=200ms",
                    dir)) {
                app.await("ready");
                app.send("start worker-1 " + PAGES);
                app.send("start pinned-0 " + PAGES);
                app.touched("worker-1");
                app.touched("pinned-0");
                ExportMetricsServiceRequest live = receiver.await(
                        r -> OtlpReceiver.value(r, FAULTS, Map.of("perfpin.thread.group", "worker")) >= PAGES * 0.97
                                && OtlpReceiver.value(r, FAULTS, Map.of("thread.name", "pinned-0")) >= PAGES * 0.97,
                        "worker and pinned-0 page faults");
                assertWithin(
                        PAGES,
                        (long) OtlpReceiver.value(live, FAULTS, Map.of("perfpin.thread.group", "worker")),
                        0.03,
                        "the worker group's page faults");
                assertWithin(
                        PAGES,
                        (long) OtlpReceiver.value(
                                live,
                                FAULTS,
                                Map.of(
                                        "thread.name",
                                        "pinned-0",
                                        "perfpin.thread.cpus",
                                        "1",
                                        "perfpin.thread.group",
                                        "pinned")),
                        0.03,
                        "pinned-0's page faults");
                Metric faults = OtlpReceiver.metric(live, FAULTS);
                assertTrue(faults.getSum().getIsMonotonic(), "a counter");
                assertEquals(
                        AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE,
                        faults.getSum().getAggregationTemporality());
                assertEquals("{fault}", faults.getUnit());
                assertEquals(
                        String.valueOf(app.pid()),
                        OtlpReceiver.attribute(
                                live.getResourceMetrics(0).getResource().getAttributesList(), "process.pid"));
                assertNull(
                        OtlpReceiver.metric(live, "perfpin.thread.coverage"),
                        "page-faults is never multiplexed: no coverage is sent");
                assertEquals(0.0, OtlpReceiver.value(live, "perfpin.series.dropped", Map.of()));
                assertTrue(OtlpReceiver.value(live, "perfpin.sampler.task_clock", Map.of()) > 0, "the sampler's cost");
                assertEquals(
                        "s",
                        OtlpReceiver.metric(live, "perfpin.sampler.task_clock").getUnit());

                app.send("churn " + CHURNED + " 0 churn");
                app.await("churned " + CHURNED);
                assertEquals(0, app.finish());
                assertEquals(List.of(), app.stderr(), "nothing said on the application's stderr");
            }
            List<ExportMetricsServiceRequest> requests = receiver.requests();
            ExportMetricsServiceRequest last = requests.get(requests.size() - 1);
            List<String> churned = Observed.records(out, "thread", "churn-\\d+");
            assertEquals(CHURNED, churned.size());
            assertEquals(
                    churned.stream()
                            .mapToDouble(r -> Observed.number(r, "page-faults"))
                            .sum(),
                    OtlpReceiver.value(last, FAULTS, Map.of("perfpin.thread.group", "churn")),
                    "the request sent at exit has the churned threads' final totals");
            assertEquals(
                    Observed.number(Observed.records(out, "thread", "pinned-0").get(0), "page-faults"),
                    OtlpReceiver.value(last, FAULTS, Map.of("thread.name", "pinned-0")));
            assertEquals(0.0, OtlpReceiver.value(last, "perfpin.threads.enrolled", Map.of()));
            assertTrue(
                    receiver.contentTypes().stream().allMatch("application/x-protobuf"::equals),
                    receiver.contentTypes().toString());
        }
    }

    /**
     * OTLP has virtual threads by group only, as Prometheus has (on the second JDK): the request sent at exit holds,
     * in the vt group's one series, the sum of their final records, and no request has a series of one of them, for
     * all that export-threads= asks a series of every thread.
     */
    @Test
    void virtualThreadsAreSentByGroupOnly(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(
                Programs.secondJava().isPresent(), "virtual threads need JDK 21 or later: set JDK25_HOME");
        Path out = dir.resolve("run.jsonl");
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            try (AppJvm app = AppJvm.start(
                    Programs.secondJava().get(),
                    "virtual=vt-.*;threads=none;events=page-faults;interval=100ms;export-threads=.*;out=" + out
                            + ";otlp=" + receiver.url() + ";otlp-interval=200ms",
                    dir)) {
                app.await("ready");
                app.send("vcompute 100 vt 1");
                app.await("vcomputed 100");
                receiver.await(
                        r -> OtlpReceiver.value(r, FAULTS, Map.of("perfpin.thread.group", "vt")) > 0,
                        "the vt group's page faults, live");
                assertEquals(0, app.finish());
            }
            List<String> records = Observed.records(out, "thread", "vt-[0-9]+");
            assertEquals(100, records.size(), "a final record each");
            List<ExportMetricsServiceRequest> requests = receiver.requests();
            assertEquals(
                    records.stream()
                            .mapToDouble(r -> Observed.number(r, "page-faults"))
                            .sum(),
                    OtlpReceiver.value(requests.get(requests.size() - 1), FAULTS, Map.of("perfpin.thread.group", "vt")),
                    "the request sent at exit has the sum of their final records, in one series");
            for (ExportMetricsServiceRequest request : requests) {
                for (NumberDataPoint point : OtlpReceiver.points(OtlpReceiver.metric(request, FAULTS), Map.of())) {
                    String name = OtlpReceiver.attribute(point.getAttributesList(), "thread.name");
                    assertTrue(name == null || !name.startsWith("vt-"), "a series of a virtual thread: " + point);
                }
            }
        }
    }

    @Test
    void aCollectorThatIsDownIsOneLineAndTheApplicationRunsOn(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        int closed = PrometheusServer.freePort();
        try (AppJvm app = AppJvm.start(
                JAVA,
                "threads=worker-.*;events=page-faults;interval=100ms;out=" + out + ";otlp=http://127.0.0.1:" + closed
                        + ";otlp-interval=100ms",
                dir)) {
            app.await("ready");
            app.send("start worker-1 " + PAGES);
            app.touched("worker-1");
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (app.stderr().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            // Proof that exports went on failing after the one said: the collector comes up on that port, and two
            // more exports reach it, to have their connections dropped.
            try (ServerSocket collector = new ServerSocket(closed, 50, InetAddress.getByName("127.0.0.1"))) {
                collector.setSoTimeout(30_000);
                for (int export = 0; export < 2; export++) {
                    collector.accept().close();
                }
            }
            assertEquals(0, app.finish());
            List<String> stderr = app.stderr();
            assertEquals(1, stderr.size(), stderr.toString());
            assertTrue(
                    stderr.get(0)
                            .startsWith("[perfpin] cannot export metrics to the OTLP receiver at" + " http://127.0.0.1:"
                                    + closed + "/v1/metrics: "),
                    stderr.get(0));
            assertTrue(
                    stderr.get(0).endsWith("; counting goes on, and each export interval tries again"), stderr.get(0));
        }
        List<String> finals = Observed.records(out, "thread", "worker-1");
        assertEquals(1, finals.size());
        assertWithin(PAGES, (long) Observed.number(finals.get(0), "page-faults"), 0.03, "worker-1's final page faults");
    }

    /**
     * A collector that takes the request and never answers: the JVM's exit waits for it at most the bound, and says
     * so in one line. How long the exit took is printed, not asserted.
     */
    @Test
    void aCollectorThatHangsHoldsTheExitAtMostTheBoundSaidInOneLine(@TempDir Path dir) throws Exception {
        try (OtlpReceiver hanging = OtlpReceiver.hanging();
                AppJvm app = AppJvm.start(
                        JAVA,
                        "threads=worker-.*;events=page-faults;interval=100ms;otlp=" + hanging.url()
                                + ";otlp-interval=60m",
                        dir)) {
            app.await("ready");
            app.send("start worker-1 " + PAGES);
            app.touched("worker-1");
            long finishing = System.nanoTime();
            assertEquals(0, app.finish());
            System.out.printf(
                    "the JVM's exit, from 'finish' to its end, with a collector that hangs: %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - finishing));
            assertEquals(1, hanging.unanswered(), "the final totals were sent, and left unanswered");
            List<String> stderr = app.stderr();
            assertEquals(
                    List.of("[perfpin] the OTLP receiver at " + hanging.url() + "/v1/metrics did not take the"
                            + " final totals within 1000 ms: perfpin stopped waiting for it, and they were not sent"),
                    stderr);
        }
    }
}
