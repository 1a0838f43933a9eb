package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.event.LibpfmEncoder;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EventsCommandTest {

    @Test
    void softwareEventsProbeSupportedAndEveryPresetIsListed() {
        CliRun run = CliRun.capture(() -> Perfpin.run("events"));
        assertEquals(ExitCode.OK, run.code, run.err);
        assertTrue(run.out.contains("  page-faults  supported"), run.out);
        assertTrue(run.out.contains("  context-switches  supported"), run.out);
        for (String preset : new String[] {"ipc", "cache", "tlb", "branch", "sched", "sharing", "aliasing"}) {
            assertTrue(run.out.contains("\n  " + preset + "  "), preset);
        }
    }

    /** Without a PMU one reason holds for every hardware event: said once, and each event points to it. */
    @Test
    void eachReasonIsSaidOnceAndEachUnsupportedEventPointsToIt() {
        CliRun run = CliRun.capture(() -> Perfpin.run("events"));
        assertEquals(ExitCode.OK, run.code, run.err);
        List<String> lines = List.of(run.out.split("\n"));
        List<String> reasons =
                lines.stream().filter(l -> l.matches("\\[\\d+\\] .*")).collect(Collectors.toList());
        assertEquals(
                reasons.size(),
                reasons.stream()
                        .map(l -> l.substring(l.indexOf(' ')))
                        .distinct()
                        .count(),
                "each reason once: " + reasons);
        for (String line : lines) {
            Matcher unsupported =
                    Pattern.compile("  \\S+  unsupported \\[(\\d+)\\]").matcher(line);
            if (unsupported.matches()) {
                assertTrue(reasons.stream().anyMatch(r -> r.startsWith("[" + unsupported.group(1) + "] ")), line);
            } else {
                assertFalse(line.contains("unsupported:"), "no reason beside an event: " + line);
            }
        }
        // The longest preset's events and a long reason are folded at spaces, as a table's notes are.
        TableWidthTest.assertFits("events", run.out);
        assertTrue(run.out.contains("\n          OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DEMAND_RFO"), run.out);
    }

    /**
     * A preset named where events are, as a misspelt event's hint suggests it: its events each encoded and probed as
     * a named event is, those this machine cannot encode with why, then its metrics.
     */
    @Test
    void aPresetsNameShowsItsEventsProbedAndItsMetrics() {
        CliRun misspelt = CliRun.capture(() -> Perfpin.run("events", "schd"));
        assertEquals(ExitCode.USAGE, misspelt.code, misspelt.err);
        assertTrue(misspelt.err.contains("did you mean sched"), misspelt.err);
        CliRun sched = CliRun.capture(() -> Perfpin.run("events", "sched"));
        assertEquals(ExitCode.OK, sched.code, sched.err);
        List<String> lines = sched.out.lines().toList();
        assertTrue(lines.get(0).startsWith("sched  what the scheduler"), sched.out);
        assertEquals(
                List.of(
                        "task-clock",
                        "context-switches",
                        "cpu-migrations",
                        "page-faults",
                        "minor-faults",
                        "major-faults"),
                lines.subList(1, 7).stream().map(l -> l.strip().split("  ")[0]).toList(),
                sched.out);
        for (String event : lines.subList(1, 7)) {
            assertTrue(event.matches("  \\S+  type=1 config=0x[0-9a-f]+  supported"), event);
        }
        assertEquals("  metrics: cpu-utilisation, cs-per-sec, migrations-per-sec, faults-per-sec", lines.get(7));
        for (String preset : new String[] {"ipc", "cache", "tlb"}) {
            CliRun run = CliRun.capture(() -> Perfpin.run("events", preset));
            assertEquals(ExitCode.OK, run.code, preset + ": " + run.err);
            assertTrue(run.out.startsWith(preset + "  "), run.out);
        }
        TableWidthTest.assertFits("events tlb", CliRun.capture(() -> Perfpin.run("events", "tlb")).out);
    }

    /**
     * In a CLI started with the simulated PMU's property (tests only), what the probe says of hardware events is the
     * simulation's: that is said first, as stat says it.
     */
    @Test
    void onTheSimulatedPmuTheProbeSaysItIsSimulated() throws Exception {
        try (ChildJvm cli = ChildJvm.startWith(
                List.of("-Dperfpin.simulated-pmu=skylake"), Perfpin.class.getName(), "events", "cycles")) {
            assertEquals(0, cli.exitWithin(Duration.ofSeconds(60)), () -> "events: " + cli.lines());
            List<String> lines = cli.rest();
            assertEquals(2, lines.size(), lines.toString());
            assertTrue(
                    lines.get(0).startsWith("perfpin events: simulated PMU skylake (-Dperfpin.simulated-pmu): "),
                    "said first: " + lines);
            assertTrue(lines.get(1).startsWith("cycles  ") && lines.get(1).endsWith("  supported"), lines.toString());
        }
    }

    @Test
    void intelEncodingsForAModelThisMachineIsNot() {
        assumeTrue(LibpfmEncoder.available(), LibpfmEncoder.unavailableReason());
        CliRun run = CliRun.capture(() -> Perfpin.run(
                "events", "--pmu", "skl", "DTLB_LOAD_MISSES.WALK_ACTIVE", "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS"));
        assertEquals(ExitCode.OK, run.code, run.err);
        // Intel's Skylake event list: 08/10 with cmask 1, and 07/01.
        assertEquals(
                "DTLB_LOAD_MISSES.WALK_ACTIVE  type=4 config=0x1001008\n"
                        + "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS  type=4 config=0x107\n",
                run.out);
    }

    @Test
    void aMisspeltModelEventIsAUsageErrorWithTheNearestNames() {
        assumeTrue(LibpfmEncoder.available(), LibpfmEncoder.unavailableReason());
        CliRun run = CliRun.capture(() -> Perfpin.run("events", "--pmu", "skl", "DTLB_LOAD_MISES.WALK_ACTIVE"));
        assertEquals(ExitCode.USAGE, run.code);
        assertTrue(run.err.contains("did you mean DTLB_LOAD_MISSES.WALK_ACTIVE"), run.err);
    }
}
