package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.perfpin.PerfpinDirectory;
import io.perfpin.stats.StatsLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopCommandTest {
    @TempDir
    Path dir;

    @Test
    void watchesAJvmsThreadsFromItsStatsFileUntilDurationOrUntilTheFileIsClosed() throws Exception {
        ChildJvm child = ChildJvm.start(RegistryChild.class.getName(), "default", "-", "8");
        Path stats = PerfpinDirectory.statsFile(child.pid());
        try {
            String tid = child.await(ReportCommandTest.THREAD).group(1);
            child.await(ReportCommandTest.TOUCHED);
            String pid = Long.toString(child.pid());
            Pattern row = Pattern.compile("(?s).*\npage-toucher +" + tid + " .*");
            Pattern block = Pattern.compile("(?s).*--- [0-9:.]+  perfpin top  pid " + pid + "  live threads: 1, counts"
                    + " over the last [0-9.]+ s \\(\\d+ agent samples?\\) ---\nthread .*");

            // long enough for the child's sampler to publish the thread on a loaded host, not only on a quiet one
            CliRun timed = CliRun.capture(() -> Perfpin.run("top", pid, "--interval", "100ms", "--duration", "2s"));
            assertEquals(ExitCode.OK, timed.code, timed.err);
            assertTrue(block.matcher(timed.out).matches(), timed.out);
            assertTrue(row.matcher(timed.out).matches(), timed.out);
            assertFalse(timed.out.contains("\033["), "plain lines when not on a terminal");
            assertTrue(
                    timed.out.contains("perfpin top: --duration passed. Totals per thread since it was enrolled:"),
                    timed.out);

            CliRun.Running untilClosed =
                    CliRun.background(() -> Perfpin.run("top", pid, "--interval", "100ms", "--duration", "60s"));
            untilClosed.awaitOut(row);
            child.send("end");
            child.await(Pattern.compile("closed"));
            CliRun closed = untilClosed.join();
            assertEquals(ExitCode.OK, closed.code, closed.err);
            String summary = closed.out.substring(closed.out.indexOf("perfpin top: "));
            assertTrue(
                    summary.startsWith(
                            "perfpin top: the agent detached. Totals per thread since it was" + " enrolled:\n"),
                    summary);
            assertTrue(row.matcher(summary).matches(), "the finished thread's totals: " + summary);
            assertTrue(
                    Pattern.compile("(?s).*\n\\(1 ended thread\\) +- +[0-9.]+ ms .*")
                            .matcher(summary)
                            .matches(),
                    "and the sum of all finished threads: " + summary);
        } finally {
            child.close();
            Files.deleteIfExists(stats);
        }
    }

    /** Before the application starts the threads asked for, a view waits for them: they have not ended. */
    @Test
    void framesBeforeAnyThreadMatchesSayTheViewWaitsForThem() throws Exception {
        try (ChildJvm service =
                ChildJvm.withAgent("threads=.*;interval=100ms", "io.perfpin.apps.Service", "0", "60", "0")) {
            service.await(Pattern.compile("ready"));
            try {
                CliRun top = CliRun.capture(() -> Perfpin.run(
                        "top", Long.toString(service.pid()), "--threads", "not-started-.*", "--duration", "500ms"));
                assertEquals(ExitCode.OK, top.code, top.err);
                assertTrue(top.out.contains("\n(waiting for threads matching --threads 'not-started-.*')\n"), top.out);
                assertFalse(top.out.contains("no live thread matches"), top.out);
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }

    /**
     * A --columns name that the watched agent does not count is refused with what it counts, and the metrics those
     * give: left out of the view, it was once a column silently missing.
     */
    @Test
    void aColumnTheAgentDoesNotCountIsRefusedWithTheColumnsItHas() throws Exception {
        try (ChildJvm service = ChildJvm.withAgent(
                "threads=.*;events=task-clock;interval=100ms", "io.perfpin.apps.Service", "0", "60", "0")) {
            service.await(Pattern.compile("ready"));
            try {
                // at once: the agent's events are columns of its stats file as soon as top can open it
                CliRun top = CliRun.capture(() -> Perfpin.run(
                        "top", Long.toString(service.pid()), "--columns", "page-faults", "--duration", "5s"));
                assertEquals(ExitCode.USAGE, top.code, top.err);
                assertEquals(
                        "perfpin top: --columns page-faults: not among the columns of the agent in JVM " + service.pid()
                                + ": task-clock, cpu-utilisation\n",
                        top.err);
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }

    /**
     * The agent makes its stats file shortly after it starts: top, started as soon as the JVM's main runs, finds it or
     * waits for it, and never says that no agent runs.
     */
    @Test
    void topStartedWithTheJvmFindsOrWaitsForItsAgentsStatsFile() throws Exception {
        try (ChildJvm service =
                ChildJvm.withAgent("threads=.*;interval=1s", "io.perfpin.apps.Service", "1", "60", "0")) {
            service.await(Pattern.compile("ready"));
            try {
                CliRun top = CliRun.capture(
                        // several of the agent's 1 s ticks, the first of which publishes worker-0
                        () -> Perfpin.run("top", Long.toString(service.pid()), "--interval", "1s", "--duration", "5s"));
                assertEquals(ExitCode.OK, top.code, top.err);
                assertTrue(top.out.contains("\nworker-0 "), top.out);
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }

    @Test
    void anEventNotCountedIsSaidOnceHoweverManyFramesShowIt() throws Exception {
        try (ChildJvm service = ChildJvm.withAgent(
                "threads=spin-.*;events=ipc,sched;interval=100ms", "io.perfpin.apps.Service", "0", "60", "0")) {
            service.await(Pattern.compile("ready"));
            service.send("spin spin-1");
            service.await(Pattern.compile("thread spin-1 tid \\d+"));
            try {
                CliRun top = CliRun.capture(() -> Perfpin.run("top", Long.toString(service.pid()), "--duration", "1s"));
                assertEquals(ExitCode.OK, top.code, top.err);
                List<String> lines = List.of(top.out.split("\n"));
                assertTrue(lines.stream().filter(l -> l.startsWith("--- ")).count() >= 3, "frames: " + top.out);
                List<String> said = lines.stream()
                        .filter(l -> l.startsWith("not counted: "))
                        .collect(Collectors.toList());
                assumeFalse(said.isEmpty(), "a PMU counts cycles and instructions here: nothing to say once");
                assertEquals(said.stream().distinct().count(), said.size(), "each once: " + top.out);
                assertTrue(
                        said.stream().allMatch(l -> l.matches("not counted: cycles, instructions: .+")),
                        "one reason, said once after the events it holds for:\n" + top.out);
                TableWidthTest.assertFits("top", top.out);
                assertFalse(top.out.contains("Not counted:"), "not again with the totals: " + top.out);
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }

    /** A --stats FILE that is not there is what the exit table says of a missing stats file: no agent, exit 6. */
    @Test
    void aMissingStatsFileIsNoAgentExitCode6() {
        Path missing = dir.resolve("missing.stats");
        CliRun top = CliRun.capture(() -> Perfpin.run("top", "--stats", missing.toString()));
        assertEquals(ExitCode.NO_AGENT, top.code, top.err);
        assertEquals("perfpin top: cannot open " + missing + ": no such file or directory\n", top.err);
    }

    @Test
    void aStatsFileDamagedBeforeTopOpensItIsOneLineAndExitCode1() throws Exception {
        Path file = dir.resolve("crafted.stats");
        StatsFiles.writeValid(file, ProcessHandle.current().pid());
        StatsFiles.putInt(file, StatsLayout.EVENT_CAPACITY_OFFSET, 0x7fffffff);
        assertOneLine(file, file + " is damaged: event capacity 2147483647 (1 to 256 allowed)");

        StatsFiles.writeValid(file, ProcessHandle.current().pid());
        StatsFiles.putLong(file, StatsLayout.INTERVAL_OFFSET, 0);
        assertOneLine(file, file + " is damaged: interval 0 ns (1 ms to 1 h allowed)");

        StatsFiles.writeValid(file, ProcessHandle.current().pid());
        byte[] bytes = Files.readAllBytes(file);
        Random random = new Random(9);
        for (int i = StatsLayout.headerSize(StatsFiles.CAPACITY); i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        Files.write(file, bytes);
        CliRun run = top(file);
        assertEquals(ExitCode.FAILURE, run.code, run.err);
        assertTrue(
                run.err.matches("perfpin top: cannot read the stats file: " + Pattern.quote(file.toString())
                        + " is damaged: live slot 0 has state -?[0-9]+ \\(free or running allowed there\\)\n"),
                run.err);
        assertEquals("", run.out);
    }

    @Test
    void aStatsFileTruncatedWhileTopWatchesItEndsTheViewWithOneLine() throws Exception {
        Path file = dir.resolve("watched.stats");
        try (ChildJvm child = ChildJvm.start(RegistryChild.class.getName(), file.toString(), "-", "1")) {
            String tid = child.await(ReportCommandTest.THREAD).group(1);
            child.await(ReportCommandTest.TOUCHED);
            long size = Files.size(file);
            CliRun.Running watching =
                    CliRun.background(() -> Perfpin.run("top", "--stats", file.toString(), "--interval", "100ms"));
            Pattern row = Pattern.compile("(?s).*\npage-toucher +" + tid + " .*");
            watching.awaitOut(row);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }
            CliRun run = watching.join();
            assertEquals(ExitCode.FAILURE, run.code, run.err);
            assertEquals(
                    "perfpin top: cannot read the stats file: " + file + " is truncated to 0 bytes (" + size
                            + " expected)\n",
                    run.err);
            assertTrue(row.matcher(run.out).matches(), "it showed the thread before: " + run.out);
            child.await(Pattern.compile("warning: stopped publishing to the stats file "
                    + Pattern.quote(file.toString()) + ": it was truncated to 0 bytes .*"));
        }
    }

    /**
     * A JVM killed while top watches it never closes its stats file: the view ends as the process is gone, says so
     * in the summary's heading with the threads' totals, and top exits 0, as when the JVM exits.
     */
    @Test
    void aJvmKilledWhileTopWatchesItEndsTheViewSayingSo() throws Exception {
        try (ChildJvm service =
                ChildJvm.withAgent("threads=spin-.*;interval=100ms", "io.perfpin.apps.Service", "0", "60", "0")) {
            service.await(Pattern.compile("ready"));
            service.send("spin spin-1");
            String tid =
                    service.await(Pattern.compile("thread spin-1 tid (\\d+)")).group(1);
            long pid = service.pid();
            try {
                CliRun.Running watching =
                        CliRun.background(() -> Perfpin.run("top", Long.toString(pid), "--interval", "100ms"));
                Pattern row = Pattern.compile("(?s).*\nspin-1 +" + tid + " .*");
                watching.awaitOut(row);
                service.kill();
                CliRun run = watching.join();
                assertEquals(ExitCode.OK, run.code, run.err);
                String summary = run.out.substring(run.out.indexOf("perfpin top: "));
                assertTrue(
                        summary.startsWith("perfpin top: process " + pid + " is gone and never closed its stats"
                                + " file (killed?). Totals per thread since it was enrolled:\n"),
                        summary);
                assertTrue(row.matcher(summary).matches(), "its thread's totals: " + summary);
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(pid));
            }
        }
    }

    /** The refresh loop's wait ends at the signal: top prints the totals and exits, as on Ctrl-C. */
    @Test
    void topEndsPromptlyOnSigtermAndSigintWithTheTotals() throws Exception {
        try (ChildJvm app = ChildJvm.start(RegistryChild.class.getName(), "default", "-", "1")) {
            try {
                String tid = app.await(ReportCommandTest.THREAD).group(1);
                app.await(ReportCommandTest.TOUCHED);
                for (String signal : List.of("TERM", "INT")) {
                    try (ChildJvm top = ChildJvm.start(
                            Perfpin.class.getName(), "top", Long.toString(app.pid()), "--interval", "100ms")) {
                        top.await(Pattern.compile("page-toucher +" + tid + " .*"));
                        assumeFalse(
                                signal.equals("INT") && ProcFiles.ignores(top.pid(), ProcFiles.SIGINT),
                                "SIGINT is ignored in this process tree, as in a background job of a script");
                        top.signal(signal);
                        int code = top.awaitExit(); // top runs until it is told: any end is the signal's
                        assertEquals(signal.equals("TERM") ? 143 : 130, code, signal);
                        List<String> rest = top.rest();
                        int summary = rest.indexOf("perfpin top: stopped. Totals per thread since it was enrolled:");
                        assertTrue(summary >= 0, signal + ": " + rest);
                        assertTrue(rest.get(summary + 2).matches("page-toucher +" + tid + " .*"), signal + ": " + rest);
                    }
                }
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(app.pid()));
            }
        }
    }

    private static CliRun top(Path file) {
        return assertTimeoutPreemptively(
                Duration.ofSeconds(30), () -> CliRun.capture(() -> Perfpin.run("top", "--stats", file.toString())));
    }

    private static void assertOneLine(Path file, String damage) {
        CliRun run = top(file);
        assertEquals(ExitCode.FAILURE, run.code, run.err);
        assertEquals("perfpin top: cannot read the stats file: " + damage + "\n", run.err);
        assertEquals("", run.out);
    }

    @Test
    void aJvmWithoutAgentAMissingProcessAndAProcessThatIsNoJvmHaveTheirOwnExitCodes() throws Exception {
        long self = ProcessHandle.current().pid();
        CliRun noAgent = CliRun.capture(() -> Perfpin.run("top", Long.toString(self)));
        assertEquals(ExitCode.NO_AGENT, noAgent.code, noAgent.err);
        assertEquals(
                "perfpin top: process " + self + " runs no perfpin agent (no stats file at "
                        + PerfpinDirectory.statsFile(self)
                        + "): start it with -javaagent:<path to perfpin-agent.jar>, or"
                        + " perfpin attach " + self + "\n",
                noAgent.err);

        CliRun missing = CliRun.capture(() -> Perfpin.run("top", "99999999"));
        assertEquals(ExitCode.NO_SUCH_PROCESS, missing.code, missing.err);
        assertEquals("perfpin top: no process with pid 99999999\n", missing.err);

        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            CliRun notJvm = CliRun.capture(() -> Perfpin.run("top", Long.toString(sleep.pid())));
            assertEquals(ExitCode.NOT_A_JVM, notJvm.code, notJvm.err);
            assertEquals(
                    "perfpin top: process " + sleep.pid() + " (sleep) is not a HotSpot JVM: it has no libjvm.so"
                            + " loaded\n",
                    notJvm.err);
        } finally {
            sleep.destroy();
        }

        CliRun nothing = CliRun.capture(() -> Perfpin.run("top"));
        assertEquals(ExitCode.USAGE, nothing.code, nothing.err);
    }
}
