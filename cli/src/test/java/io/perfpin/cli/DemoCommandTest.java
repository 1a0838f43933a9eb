package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoCommandTest {

    @Test
    void theDemoRunsPingPongAndFalseSharingPinnedUnderTheAgent() {
        CpuSet allowed = CpuTopology.live().allowed();
        String first = Integer.toString(allowed.first());
        String second = Integer.toString(allowed.size() > 1 ? allowed.next(allowed.first() + 1) : allowed.first());
        CliRun out = CliRun.capture(() -> Perfpin.run("demo", "--round-trips", "20000", "--increments", "200000"));
        assertEquals(ExitCode.OK, out.code, out.err);
        String[] lines = out.out.split("\n");
        // thread tid cpus state task-clock(2 tokens) [ipc] context-switches cpu-migrations: the totals of each run
        String[] ping = row(lines, "ping");
        assertEquals(first, ping[2], "ping pinned");
        assertEquals("ended", ping[3], "and ended with the application");
        assertEquals("0", ping[ping.length - 2], "pinned before it was counted, ping never migrated");
        assertEquals(second, row(lines, "pong")[2], "pong pinned");
        assertEquals(first, row(lines, "adjacent-writer-0")[2]);
        assertEquals(second, row(lines, "padded-writer-1")[2]);
        TableWidthTest.assertFits("demo", out.out);
        assertFalse(out.out.contains("the others are"), out.out);
        List<String> notCounting = out.out
                .lines()
                .filter(l -> l.startsWith("perfpin demo: not counting "))
                .toList();
        // Where a PMU counts nothing here, each reason is said once, after every event it holds for.
        assertEquals(
                notCounting.size(),
                notCounting.stream()
                        .map(l -> l.substring(l.indexOf(": ", 13)))
                        .distinct()
                        .count(),
                out.out);
        if (!notCounting.isEmpty()) {
            assertTrue(notCounting.get(0).startsWith("perfpin demo: not counting cycles, instructions: "), out.out);
            String counting = out.out
                    .lines()
                    .filter(l -> l.startsWith("perfpin demo: counting "))
                    .findFirst()
                    .orElseThrow();
            assertTrue(counting.startsWith("perfpin demo: counting task-clock, "), out.out);
            assertFalse(counting.contains("cycles"), "only what is counted: " + counting);
        }
    }

    /** demo's tables take the view options as run's do: here the columns named, in their order, and no other. */
    @Test
    void theDemosTablesShowTheColumnsNamed() {
        CliRun out = CliRun.capture(() -> Perfpin.run(
                "demo", "--round-trips", "20000", "--increments", "200000", "--columns", "page-faults,task-clock"));
        assertEquals(ExitCode.OK, out.code, out.err);
        List<String> headers =
                out.out.lines().filter(l -> l.startsWith("thread ")).toList();
        assertFalse(headers.isEmpty(), out.out);
        for (String header : headers) {
            assertTrue(header.matches("thread +tid +cpus( +cpu)?( +state)? +page-faults +task-clock"), header);
        }
    }

    @Test
    void aMisspeltEventIsOneLineNamingItAndTheNearestNamesWithExitCode2() {
        CliRun out = CliRun.capture(() -> Perfpin.run("demo", "--events", "sched,cylces"));
        assertEquals(ExitCode.USAGE, out.code);
        assertEquals(1, out.err.strip().split("\n").length, out.err);
        assertTrue(out.err.contains("'cylces'") && out.err.contains("cycles"), out.err);
    }

    /** The last row of a thread: its totals. */
    private static String[] row(String[] lines, String thread) {
        String found = null;
        for (String line : lines) {
            if (line.startsWith(thread + " ")) {
                found = line;
            }
        }
        if (found == null) {
            throw new AssertionError("no row for " + thread + " in\n" + String.join("\n", lines));
        }
        return found.trim().split("\\s+");
    }
}
