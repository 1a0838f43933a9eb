package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.JsonReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code perfpin stat} with hardware events, on the simulated PMU of a CLI started with its property, counting another
 * JVM's thread: its JSON says the PMU first and in the record's pmu field, with cycles at the model's 3 GHz of the
 * thread's task-clock and the IPC asked for; its table has the line that says the counts are simulated. With more
 * general-purpose events than the model's counters, multiplexed: the windows of an event add up to its total, whose
 * coverage is strictly between 0 and 1 and whose count is scaled to the whole time (cycles still 3 GHz of task-clock,
 * counted throughout); the CSV has the pmu column and a {@code :coverage} below 1. And the memory-bound hint fires for
 * a thread of low IPC and many misses, and not at the IPC of 1.5; the page-walk hint reads the share of cycles spent
 * walking page tables.
 */
class StatSimulatedPmuTest {
    private static final Pattern WORKER = Pattern.compile("thread (worker-0) tid (\\d+)");
    private static final List<String> SIMULATED =
            List.of("-Dperfpin.simulated-pmu=skylake", "-Dperfpin.simulated-pmu.ipc=1.5");

    @Test
    void countsCyclesAndInstructionsOfAnotherJvmAndSaysTheyAreSimulated() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(WORKER);
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());

            List<String> json = stat(pid, "json");
            assertTrue(
                    json.get(0).startsWith("perfpin stat: simulated PMU skylake (-Dperfpin.simulated-pmu): "),
                    "said first: " + json);
            Map<?, ?> record = (Map<?, ?>) JsonReader.parse(json.get(1));
            assertEquals("simulated skylake", record.get("pmu"));
            Map<?, ?> counters = (Map<?, ?>) record.get("counters");
            double taskClock = ((Number) counters.get("task-clock")).doubleValue();
            double cycles = ((Number) counters.get("cycles")).doubleValue();
            assertTrue(taskClock > 0, "the worker ran: " + counters);
            assertEquals(3.0 * taskClock, cycles, 3.0 * taskClock * 0.02, "3 GHz of its task-clock: " + counters);
            assertEquals(1.5, ((Number) ((Map<?, ?>) record.get("metrics")).get("ipc")).doubleValue(), 0.02);

            List<String> table = stat(pid, "table");
            assertTrue(
                    table.stream().anyMatch(l -> l.startsWith("hardware counts from a simulated skylake PMU")),
                    "the table says so: " + table);

            // Windows of a multiplexed event add up to its total: 12 general-purpose events rotate on 4 counters.
            List<String> windows = stat(
                    SIMULATED,
                    pid,
                    "json",
                    "ipc,cache,tlb,branch,task-clock",
                    "--interval",
                    "100ms",
                    "--duration",
                    "600ms");
            double summed = 0;
            Map<?, ?> total = null;
            for (String line : windows.subList(1, windows.size())) {
                Map<?, ?> r = (Map<?, ?>) JsonReader.parse(line);
                Map<?, ?> counts = (Map<?, ?>) r.get("counters");
                if ("sample".equals(r.get("type"))) {
                    summed += ((Number) counts.get("cache-misses")).doubleValue();
                    assertEquals("simulated skylake", r.get("pmu"));
                } else {
                    total = r;
                }
            }
            Map<?, ?> totalCoverage = (Map<?, ?>) total.get("coverage");
            double coverage = ((Number) totalCoverage.get("cache-misses")).doubleValue();
            assertTrue(coverage > 0 && coverage < 1, "multiplexed: " + totalCoverage);
            double whole = ((Number) ((Map<?, ?>) total.get("counters")).get("cache-misses")).doubleValue();
            assertEquals(whole, summed, whole * 0.02, "the windows' cache-misses add up to the total: " + windows);
            // Scaled, raw x enabled / running: cycles rotated off the counters part of the time still come to 3 GHz of
            // the task-clock, which as a software event was counted throughout.
            Map<?, ?> totals = (Map<?, ?>) total.get("counters");
            double cyclesCoverage = ((Number) totalCoverage.get("cycles")).doubleValue();
            assertTrue(cyclesCoverage > 0 && cyclesCoverage < 1, "cycles multiplexed too: " + totalCoverage);
            assertEquals(1.0, ((Number) totalCoverage.get("task-clock")).doubleValue(), "task-clock throughout");
            double wholeClock = ((Number) totals.get("task-clock")).doubleValue();
            assertEquals(
                    3.0 * wholeClock,
                    ((Number) totals.get("cycles")).doubleValue(),
                    3.0 * wholeClock * 0.02,
                    "scaled to the whole time, not " + cyclesCoverage + " of it: " + totals);

            List<String> csv = stat(SIMULATED, pid, "csv", "ipc,cache,tlb,branch,task-clock");
            List<String> header = OutputContractTest.fields(
                    csv.stream().filter(l -> l.startsWith("name,")).findFirst().orElseThrow());
            List<String> row = OutputContractTest.fields(csv.stream()
                    .filter(l -> l.startsWith("worker-0,"))
                    .findFirst()
                    .orElseThrow());
            assertEquals("simulated skylake", row.get(header.indexOf("pmu")), "the pmu column: " + csv);
            double csvCoverage = Double.parseDouble(row.get(header.indexOf("cache-misses:coverage")));
            assertTrue(csvCoverage > 0 && csvCoverage < 1, "cache-misses:coverage multiplexed: " + csv);

            // A thread of low IPC that misses the cache often: the hint that reads both fires, and only then. Its
            // page walks, 30 cycles for each of 8 misses per 1000 instructions, take 0.3 x 8 x 30 / 1000 = 7.2% of
            // its cycles: under the page-walk hint's 10%.
            List<String> memoryBound = stat(
                    List.of(
                            "-Dperfpin.simulated-pmu=skylake",
                            "-Dperfpin.simulated-pmu.ipc=0.3",
                            "-Dperfpin.simulated-pmu.mpki=8"),
                    pid,
                    "table",
                    "ipc,cache,tlb");
            assertTrue(memoryBound.stream().anyMatch(l -> l.contains("memory bound: 0.3")), "hint: " + memoryBound);
            assertTrue(table.stream().noneMatch(l -> l.contains("memory bound")), "not at 1.5: " + table);
            assertTrue(memoryBound.stream().noneMatch(l -> l.contains("page walks take")), "7.2%: " + memoryBound);

            // At 1.5 instructions per cycle the same walks take 1.5 x 8 x 30 / 1000 = 36% of the cycles: the
            // walk-cycles-share column says so, and the page-walk hint fires.
            List<String> walking = stat(
                    List.of(
                            "-Dperfpin.simulated-pmu=skylake",
                            "-Dperfpin.simulated-pmu.ipc=1.5",
                            "-Dperfpin.simulated-pmu.mpki=8"),
                    pid,
                    "table",
                    "ipc,tlb",
                    "--columns",
                    "ipc,walk-cycles-share",
                    "--duration",
                    "300ms");
            List<String> walkHeader = List.of(walking.stream()
                    .filter(l -> l.startsWith("thread "))
                    .findFirst()
                    .orElseThrow()
                    .split(" +"));
            List<String> walkRow = List.of(walking.stream()
                    .filter(l -> l.startsWith("worker-0 "))
                    .findFirst()
                    .orElseThrow()
                    .split(" +"));
            assertEquals(walkHeader.size(), walkRow.size(), "a value in every column: " + walking);
            assertEquals(
                    0.36,
                    Double.parseDouble(walkRow.get(walkHeader.indexOf("walk-cycles-share"))),
                    0.02,
                    "the column: " + walking);
            assertTrue(
                    walking.stream().anyMatch(l -> l.contains("page walks take 36.0% of cycles")),
                    "the page-walk hint: " + walking);
        }
    }

    private static List<String> stat(String pid, String format) throws Exception {
        return stat(SIMULATED, pid, format, "ipc,task-clock");
    }

    private static List<String> stat(List<String> simulated, String pid, String format, String events, String... more)
            throws Exception {
        List<String> args =
                new ArrayList<>(List.of("stat", pid, "--threads", "worker-0", "--events", events, "--format", format));
        args.addAll(more.length > 0 ? List.of(more) : List.of("--duration", "300ms"));
        try (ChildJvm cli = ChildJvm.startWith(simulated, Perfpin.class.getName(), args.toArray(new String[0]))) {
            assertEquals(0, cli.exitWithin(Duration.ofSeconds(60)), () -> "stat: " + cli.lines());
            return cli.rest();
        }
    }
}
