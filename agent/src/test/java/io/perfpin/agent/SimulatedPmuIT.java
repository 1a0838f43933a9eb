package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.Recording;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hardware path end to end, on the simulated PMU: the agent counts cycles, instructions, cache, TLB and
 * branch events for a thread that works, twelve general-purpose events on four counters, so its groups are
 * rotated; every record says which simulated PMU made the counts. The simulation stands on the thread's real
 * task-clock, which the agent counts beside it: cycles are 3 GHz of it, and instructions twice the cycles.
 */
class SimulatedPmuIT {
    private static final double IPC = 2.0;

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void countsHardwareEventsThroughEveryLayerAndSaysTheyAreSimulated(String java, @TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("simulated.jsonl");
        List<String> stderr;
        try (AppJvm app = AppJvm.start(java, "threads=sim-.*;events=ipc,cache,tlb,branch,task-clock;interval=50ms;out="
                + out, dir, "-Dperfpin.simulated-pmu=skylake", "-Dperfpin.simulated-pmu.ipc=" + IPC)) {
            app.await("ready");
            app.send("paced sim-1 2000 8");
            app.await("paced sim-1");
            assertEquals(0, app.finish());
            stderr = app.stderr();
        }
        assertTrue(stderr.stream().anyMatch(l -> l.startsWith("[perfpin] simulated PMU skylake")), "said: " + stderr);

        List<ThreadReport> samples = new ArrayList<>();
        Recording recording = Recording.read(out, record -> {
            if (!record.isFinal() && record.report().name().equals("sim-1")) {
                samples.add(record.report());
            }
        });
        assertEquals("simulated skylake", recording.jvm().orElseThrow().pmu());
        ThreadReport last = recording.threads().stream().filter(ThreadRecord::isFinal).map(ThreadRecord::report)
                .filter(r -> r.name().equals("sim-1")).findFirst().orElseThrow();
        assertEquals("simulated skylake", last.pmu());
        Map<String, Long> counters = last.counters();
        double taskClock = counters.get("task-clock");
        assertTrue(taskClock > 0, "the thread ran");
        assertEquals(3.0 * taskClock, counters.get("cycles"), 3.0 * taskClock * 0.05,
                "scaled cycles: 3 GHz of the thread's task-clock, " + counters);
        assertEquals(IPC, last.metrics().get("ipc"), IPC * 0.02, "ipc: " + last.metrics());
        for (String event : List.of("cache-misses", "L1-dcache-load-misses", "LLC-load-misses", "dTLB-load-misses",
                "iTLB-load-misses", "branch-misses")) {
            assertTrue(counters.get(event) > 0, event + ": " + counters);
        }
        assertTrue(last.coverage().values().stream().anyMatch(c -> c > 0 && c < 1),
                "multiplexed: some coverage strictly between 0 and 1: " + last.coverage());
        assertTrue(last.metrics().containsKey("cache-mpki") && last.metrics().containsKey("branch-miss-ratio"),
                "metrics of misses: " + last.metrics());

        assertTrue(samples.size() >= 2, "live samples of sim-1: " + samples.size());
        long previous = 0;
        for (ThreadReport sample : samples) {
            assertEquals("simulated skylake", sample.pmu());
            long cycles = sample.counters().getOrDefault("cycles", 0L);
            assertTrue(cycles >= previous * 0.99, "samples are cumulative: " + cycles + " after " + previous);
            previous = cycles;
        }
        assertTrue(previous <= counters.get("cycles") * 1.01, "the last sample within the final total");
    }
}
