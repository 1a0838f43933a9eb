package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.EventFailure;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
        // What this machine cannot count, asked of the kernel as the demo asks it: each reason said once, after every
        // event it holds for, then the events counted.
        List<EventFailure> unsupported;
        Syscalls syscalls = Backends.syscalls();
        try (CounterGroup probe = CounterGroup.open(
                syscalls,
                syscalls.gettid(),
                EventList.parse("ipc,sched", new EventParser()).events())) {
            unsupported = probe.unsupported();
        }
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        for (EventFailure failure : unsupported) {
            byReason.computeIfAbsent(failure.reason(), r -> new ArrayList<>())
                    .add(failure.event().name());
        }
        List<String> notCounting = out.out
                .lines()
                .filter(l -> l.startsWith("perfpin demo: not counting "))
                .toList();
        assertEquals(byReason.size(), notCounting.size(), out.out);
        for (List<String> events : byReason.values()) {
            String note = "perfpin demo: not counting " + String.join(", ", events) + ": ";
            assertEquals(
                    1, notCounting.stream().filter(l -> l.startsWith(note)).count(), note + " once in:\n" + out.out);
        }
        if (!unsupported.isEmpty()) {
            String counting = out.out
                    .lines()
                    .filter(l -> l.startsWith("perfpin demo: counting "))
                    .findFirst()
                    .orElseThrow();
            assertTrue(counting.startsWith("perfpin demo: counting task-clock, "), out.out);
            for (EventFailure failure : unsupported) {
                assertFalse(
                        List.of(counting.substring("perfpin demo: counting ".length())
                                        .split(", "))
                                .contains(failure.event().name()),
                        "only what is counted: " + counting);
            }
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
