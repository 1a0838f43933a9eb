package io.perfpin.cli;

import org.junit.jupiter.api.Test;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoCommandTest {

    @Test
    void theDemoCountsItsThreadsAndSaysWhatWasNotCounted() {
        CliRun out = CliRun.capture(() -> Perfpin.run("demo"));
        assertEquals(ExitCode.OK, out.code, out.err);
        String[] lines = out.out.split("\n");
        String toucher = row(lines, "page-toucher");
        String sleeper = row(lines, "sleeper");
        // page-faults is the 7th column: thread tid cpus task-clock(2 tokens) context-switches cpu-migrations page-faults
        long faults = Long.parseLong(toucher.trim().split("\\s+")[7].replace(",", ""));
        assertTrue(Math.abs(faults - 16384) <= 16384 * 0.03, toucher);
        assertTrue(Long.parseLong(sleeper.trim().split("\\s+")[5]) >= 50, sleeper);
        assertEquals("0", row(lines, "pinned-spinner").trim().split("\\s+")[6], "the pinned thread never migrated");
    }

    @Test
    void aMisspeltEventIsOneLineNamingItAndTheNearestNamesWithExitCode2() {
        CliRun out = CliRun.capture(() -> Perfpin.run("demo", "--events", "sched,cylces"));
        assertEquals(ExitCode.USAGE, out.code);
        assertEquals(1, out.err.strip().split("\n").length, out.err);
        assertTrue(out.err.contains("'cylces'") && out.err.contains("cycles"), out.err);
    }

    private static String row(String[] lines, String thread) {
        for (String line : lines) {
            if (line.startsWith(thread + " ")) {
                return line;
            }
        }
        throw new AssertionError("no row for " + thread + " in\n" + String.join("\n", lines));
    }
}
