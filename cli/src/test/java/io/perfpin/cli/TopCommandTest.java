package io.perfpin.cli;

import io.perfpin.PerfpinDirectory;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopCommandTest {

    @Test
    void watchesAJvmsThreadsFromItsStatsFileUntilDurationOrUntilTheFileIsClosed() throws Exception {
        ChildJvm child = ChildJvm.start(RegistryChild.class.getName(), "default", "-", "8");
        Path stats = PerfpinDirectory.statsFile(child.pid());
        try {
            String tid = child.await(ReportCommandTest.THREAD).group(1);
            child.await(ReportCommandTest.TOUCHED);
            String pid = Long.toString(child.pid());
            Pattern row = Pattern.compile("(?s).*\npage-toucher +" + tid + " .*");
            Pattern block = Pattern.compile("(?s).*--- [0-9:.]+  pid " + pid + "  live threads: 1, their counts over"
                    + " the last interval ---\nthread .*");

            CliRun timed = CliRun.capture(() -> Perfpin.run("top", pid, "--interval", "100ms", "--duration", "300ms"));
            assertEquals(ExitCode.OK, timed.code, timed.err);
            assertTrue(block.matcher(timed.out).matches(), timed.out);
            assertTrue(row.matcher(timed.out).matches(), timed.out);
            assertFalse(timed.out.contains("\033["), "plain lines when not on a terminal");
            assertTrue(timed.out.contains("perfpin top: --duration passed. Totals per thread since it was enrolled:"),
                    timed.out);

            CliRun.Running untilClosed = CliRun.background(() -> Perfpin.run("top", pid, "--interval", "100ms",
                    "--duration", "60s"));
            while (!row.matcher(untilClosed.outSoFar()).matches()) {
                Thread.sleep(20);
            }
            child.send("end");
            child.await(Pattern.compile("closed"));
            CliRun closed = untilClosed.join();
            assertEquals(ExitCode.OK, closed.code, closed.err);
            String summary = closed.out.substring(closed.out.indexOf("perfpin top: "));
            assertTrue(summary.startsWith("perfpin top: the agent closed its stats file: the JVM exited or the agent"
                    + " detached. Totals per thread since it was enrolled:\n"), summary);
            assertTrue(row.matcher(summary).matches(), "the finished thread's totals: " + summary);
            assertTrue(Pattern.compile("(?s).*\n\\(1 finished thread\\) +- +[0-9.]+ ms .*").matcher(summary).matches(),
                    "and the sum of all finished threads: " + summary);
        } finally {
            child.close();
            Files.deleteIfExists(stats);
        }
    }

    @Test
    void aJvmWithoutAgentAMissingProcessAndAProcessThatIsNoJvmHaveTheirOwnExitCodes() throws Exception {
        long self = ProcessHandle.current().pid();
        CliRun noAgent = CliRun.capture(() -> Perfpin.run("top", Long.toString(self)));
        assertEquals(ExitCode.NO_AGENT, noAgent.code, noAgent.err);
        assertEquals("perfpin top: process " + self + " runs no perfpin agent (no stats file at "
                + PerfpinDirectory.statsFile(self) + "): start it with -javaagent:<path to perfpin-agent.jar>, or"
                + " perfpin attach " + self + "\n", noAgent.err);

        CliRun missing = CliRun.capture(() -> Perfpin.run("top", "99999999"));
        assertEquals(ExitCode.NO_SUCH_PROCESS, missing.code, missing.err);
        assertEquals("perfpin top: no process with pid 99999999\n", missing.err);

        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            CliRun notJvm = CliRun.capture(() -> Perfpin.run("top", Long.toString(sleep.pid())));
            assertEquals(ExitCode.NOT_A_JVM, notJvm.code, notJvm.err);
            assertEquals("perfpin top: process " + sleep.pid() + " (sleep) is not a HotSpot JVM: it has no libjvm.so"
                    + " loaded\n", notJvm.err);
        } finally {
            sleep.destroy();
        }

        CliRun nothing = CliRun.capture(() -> Perfpin.run("top"));
        assertEquals(ExitCode.USAGE, nothing.code, nothing.err);
    }
}
