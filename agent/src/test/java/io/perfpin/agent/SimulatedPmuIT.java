package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.perfpin.apps.Programs;
import io.perfpin.report.Recording;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hardware path end to end, on the simulated PMU: the agent counts cycles, instructions, cache, TLB and
 * branch events for a thread that works, twelve general-purpose events on four counters, so its groups are
 * rotated; every record, the Prometheus and OTLP exports and the JFR event type say which simulated PMU made the
 * counts. The simulation stands on the thread's real task-clock, which the agent counts beside it: cycles are 3 GHz
 * of it, and instructions twice the cycles. A multiplexed count is its raw count, which the stats file holds with the
 * kernel's two times, scaled by enabled / running; the samples' windows add up to the final totals.
 */
class SimulatedPmuIT {
    private static final double IPC = 2.0;
    private static final String WALK = "DTLB_LOAD_MISSES.WALK_ACTIVE";

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void countsHardwareEventsThroughEveryLayerAndSaysTheyAreSimulated(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("simulated.jsonl");
        Path jfr = dir.resolve("simulated.jfr");
        int port = PrometheusServer.freePort();
        List<String> stderr;
        long[] idle;
        String scraped;
        ExportMetricsServiceRequest exported;
        try (OtlpReceiver receiver = OtlpReceiver.start();
                AppJvm app = AppJvm.start(
                        java,
                        "threads=sim-.*;events=ipc,cache,tlb,branch,task-clock;interval=50ms;out=" + out
                                + ";prometheus=127.0.0.1:" + port + ";otlp=" + receiver.url() + ";otlp-interval=100ms",
                        dir,
                        "-Dperfpin.simulated-pmu=skylake",
                        "-Dperfpin.simulated-pmu.ipc=" + IPC,
                        "-XX:StartFlightRecording=filename=" + jfr)) {
            app.await("ready");
            // The thread stays once its work is done, so that the agent's last sample of it comes after the work.
            app.send("paced sim-1 2000 8 stay");
            int tid = Integer.parseInt(app.await("paced sim-1 ").split(" ")[2]);
            awaitSamples(out, Observed.records(out, "sample", "sim-1").size() + 2);
            idle = Observed.liveCount(Observed.statsFile(dir, app.pid()), tid, "cache-misses");
            scraped = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            exported = receiver.await(
                    r -> OtlpReceiver.metric(r, "perfpin.thread.cycles") != null
                            && OtlpReceiver.metric(r, "perfpin.thread.coverage") != null,
                    "cycles and their coverage");
            assertEquals(0, app.finish());
            stderr = app.stderr();
        }
        assertEquals(
                "simulated skylake",
                OtlpReceiver.attribute(
                        exported.getResourceMetrics(0).getResource().getAttributesList(), "perfpin.pmu"),
                "the OTLP resource");
        assertTrue(OtlpReceiver.value(exported, "perfpin.thread.cycles", Map.of("perfpin.thread.group", "sim")) > 0);
        assertTrue(scraped.contains("\nperfpin_simulated_pmu_info{pmu=\"simulated skylake\"} 1"), scraped);
        assertTrue(scraped.contains("\nperfpin_thread_cycles_total{thread_group=\"sim\""), scraped);
        assertTrue(
                scraped.contains("\nperfpin_thread_coverage_ratio{event=\"cache-misses\",thread_group=\"sim\""),
                "multiplexed events have their coverage: " + scraped);

        List<RecordedEvent> counted = RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals("perfpin.ThreadCounters")
                        && "sim-1".equals(e.getString("threadName")))
                .collect(Collectors.toList());
        assertTrue(!counted.isEmpty(), "JFR events of sim-1");
        assertEquals(
                "Thread Counters (simulated skylake PMU)",
                counted.get(0).getEventType().getLabel());
        assertTrue(
                counted.stream()
                        .anyMatch(e -> e.getLong("cycles") > 0
                                && e.getDouble("cyclesCoverage") < 1
                                && e.getDouble("cyclesCoverage") > 0),
                "cycles, multiplexed, in JFR: " + counted.get(0));
        assertTrue(
                counted.stream().anyMatch(e -> e.hasField("ipc") && Math.abs(e.getDouble("ipc") - IPC) < 0.02 * IPC),
                "the IPC asked for, in JFR: " + counted.get(0));
        assertTrue(stderr.stream().anyMatch(l -> l.startsWith("[perfpin] simulated PMU skylake")), "said: " + stderr);

        List<ThreadReport> samples = new ArrayList<>();
        Recording recording = Recording.read(out, record -> {
            if (!record.isFinal() && record.report().name().equals("sim-1")) {
                samples.add(record.report());
            }
        });
        assertEquals("simulated skylake", recording.jvm().orElseThrow().pmu());
        ThreadReport last = recording.threads().stream()
                .filter(ThreadRecord::isFinal)
                .map(ThreadRecord::report)
                .filter(r -> r.name().equals("sim-1"))
                .findFirst()
                .orElseThrow();
        assertEquals("simulated skylake", last.pmu());
        Map<String, Long> counters = last.counters();
        double taskClock = counters.get("task-clock");
        assertTrue(taskClock > 0, "the thread ran");
        assertEquals(
                3.0 * taskClock,
                counters.get("cycles"),
                3.0 * taskClock * 0.05,
                "scaled cycles: 3 GHz of the thread's task-clock, " + counters);
        assertEquals(
                IPC * counters.get("cycles"),
                counters.get("instructions"),
                IPC * counters.get("cycles") * 0.02,
                "instructions: the IPC asked for times the cycles, " + counters);
        assertEquals(IPC, last.metrics().get("ipc"), IPC * 0.02, "ipc: " + last.metrics());
        List<String> generalPurpose = counters.keySet().stream()
                .filter(e -> !List.of("cycles", "instructions", "task-clock").contains(e))
                .toList();
        assertEquals(12, generalPurpose.size(), "ipc, cache, tlb and branch on general-purpose counters: " + counters);
        assertTrue(last.unsupported().isEmpty(), "the simulated Skylake counts Intel's events: " + last.unsupported());
        double walkCoverage = last.coverage().get(WALK);
        assertTrue(walkCoverage > 0 && walkCoverage < 1, "the walk event multiplexed: " + last.coverage());
        assertTrue(last.metrics().get("walk-cycles-share") > 0, "walk-cycles-share: " + last.metrics());
        for (String event : List.of(
                "cache-misses",
                "L1-dcache-load-misses",
                "LLC-load-misses",
                "dTLB-load-misses",
                "iTLB-load-misses",
                "branch-misses")) {
            assertTrue(counters.get(event) > 0, event + ": " + counters);
        }
        assertTrue(
                last.coverage().values().stream().anyMatch(c -> c > 0 && c < 1),
                "multiplexed: some coverage strictly between 0 and 1: " + last.coverage());
        assertTrue(
                last.metrics().containsKey("cache-mpki") && last.metrics().containsKey("branch-miss-ratio"),
                "metrics of misses: " + last.metrics());

        assertTrue(samples.size() >= 2, "live samples of sim-1: " + samples.size());
        long previous = 0;
        for (ThreadReport sample : samples) {
            assertEquals("simulated skylake", sample.pmu());
            long cycles = sample.counters().getOrDefault("cycles", 0L);
            assertTrue(cycles >= previous * 0.99, "samples are cumulative: " + cycles + " after " + previous);
            previous = cycles;
        }
        // Samples are cumulative: the last one is what its windows add up to, taken after the work was done.
        ThreadReport lastSample = samples.get(samples.size() - 1);
        for (String event : List.of("cycles", "instructions", "cache-misses", WALK)) {
            double whole = counters.get(event);
            assertEquals(
                    whole,
                    lastSample.counters().get(event),
                    whole * 0.02,
                    "the windows' " + event + " add up to the final total: " + lastSample.counters());
        }

        // The stats file has the raw count and the kernel's two times, read while the thread waited after its work.
        assertTrue(idle != null, "sim-1 in the stats file");
        double coverage = (double) idle[2] / idle[1];
        assertTrue(coverage > 0 && coverage < 1, "cache-misses multiplexed: running " + idle[2] + " of " + idle[1]);
        assertEquals(coverage, lastSample.coverage().get("cache-misses"), 0.001, "coverage: running / enabled");
        long scaled = lastSample.counters().get("cache-misses");
        assertEquals(
                idle[0],
                scaled * coverage,
                idle[0] * 0.01,
                "raw cache-misses " + idle[0] + " = scaled " + scaled + " x running / enabled");
    }

    /**
     * Virtual threads' counters are opened by the C library, past the simulation: with hardware events asked, they
     * are not counted, which the agent says once, and its platform threads count as ever; with software events
     * only, they are counted.
     */
    @Test
    void virtualThreadsAreNotCountedForHardwareEventsOnTheSimulatedPmuAndItIsSaidOnce(@TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(Programs.secondJava().isPresent(), "virtual threads need JDK 21+: set JDK25_HOME");
        String java = Programs.secondJava().orElseThrow();
        Path out = dir.resolve("hardware.jsonl");
        try (AppJvm app = AppJvm.start(
                java,
                "threads=sim-.*;virtual=vt-.*;events=ipc,task-clock;out=" + out,
                dir,
                "-Dperfpin.simulated-pmu=skylake")) {
            app.await("ready");
            app.send("vcompute 4 vt 2");
            app.await("vcomputed 4");
            app.send("paced sim-1 100 2");
            app.await("paced sim-1 ");
            assertEquals(0, app.finish());
            List<String> said = app.stderr().stream()
                    .filter(l -> l.startsWith("[perfpin]") && !l.startsWith("[perfpin] simulated PMU"))
                    .toList();
            assertEquals(1, said.size(), "said once: " + app.stderr());
            assertTrue(
                    said.get(0).contains("virtual threads are not counted")
                            && said.get(0).contains("simulated skylake PMU")
                            && said.get(0).contains("cycles would not be counted"),
                    said.get(0));
        }
        assertEquals(List.of(), Observed.records(out, "thread", "vt-[0-9]+"), "no virtual thread's record");
        List<String> platform = Observed.records(out, "thread", "sim-1");
        assertEquals(1, platform.size(), "the platform thread's final record");
        assertTrue(Observed.number(platform.get(0), "cycles") > 0, platform.get(0));

        Path software = dir.resolve("software.jsonl");
        try (AppJvm app = AppJvm.start(
                java, "virtual=vt-.*;events=task-clock;out=" + software, dir, "-Dperfpin.simulated-pmu=skylake")) {
            app.await("ready");
            app.send("vcompute 4 vt 2");
            app.await("vcomputed 4");
            assertEquals(0, app.finish());
            assertTrue(
                    app.stderr().stream().noneMatch(l -> l.contains("virtual threads are not counted")),
                    app.stderr().toString());
        }
        assertEquals(4, Observed.records(software, "thread", "vt-[0-9]+").size(), "software events: counted");
    }

    /** Waits, up to 30 s, until the recording holds {@code count} samples of sim-1. */
    private static void awaitSamples(Path out, int count) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (Observed.records(out, "sample", "sim-1").size() < count) {
            assertTrue(System.nanoTime() < deadline, "no " + count + " samples of sim-1 within 30 s");
            Thread.sleep(20);
        }
    }
}
