package io.perfpin.cli;

import io.perfpin.PerfpinDirectory;
import io.perfpin.stats.StatsFileReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** attach, its live view, detach, and run, on real JVMs with the agent packaged in the CLI's jar. */
class AttachCommandTest {
    @Test
    void attachPinsAndShowsRunningThreadsAndDetachOnExitUndoesIt() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            Matcher worker = service.await(Pattern.compile("thread worker-0 tid (\\d+)"));
            int tid = Integer.parseInt(worker.group(1));
            service.await(Pattern.compile("ready"));
            CliRun run = CliRun.capture(() -> Perfpin.run("attach", Long.toString(service.pid()), "--threads",
                    "worker-.*", "--pin", "worker-0@1", "--interval", "200ms", "--duration", "1s", "--detach-on-exit"));
            assertEquals(0, run.code, run.err);
            assertTrue(run.out.matches("(?s).*worker-0 +" + tid + " +1 .*"), "worker-0 shown pinned to CPU 1:\n" + run.out);
            assertEquals("0-1", ProcFiles.cpusAllowed(service.pid(), tid), "detach gave the affinity back");
            assertTrue(StatsFileReader.open(PerfpinDirectory.statsFile(service.pid())).isClosed());

            CliRun again = CliRun.capture(() -> Perfpin.run("detach", Long.toString(service.pid())));
            assertEquals(ExitCode.NO_AGENT, again.code, again.err);
            Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
        }
    }

    @Test
    void runReturnsTheApplicationsExitCodeAfterItsSummary() {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = io.perfpin.apps.PageToucher.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        CliRun run = CliRun.capture(() -> Perfpin.run("run", "--threads", "main", "--", java, "-cp", classPath,
                "io.perfpin.apps.PageToucher", "16"));
        assertEquals(0, run.code, run.err);
        assertTrue(run.out.contains("Totals per thread"), run.out);
        assertTrue(run.out.matches("(?s).*\\nmain +\\d+ .*"), "the main thread's totals:\n" + run.out);
        Matcher recorded = Pattern.compile("Recorded in (\\S+) ").matcher(run.out);
        assertTrue(recorded.find(), run.out);
        CliRun report = CliRun.capture(() -> Perfpin.run("report", recorded.group(1), "--format", "json"));
        assertEquals(0, report.code, report.err);
        String main = report.out.lines().filter(l -> l.contains("\"name\":\"main\"")).findFirst().orElseThrow();
        for (String field : List.of("\"type\":\"thread\"", "\"tid\":", "\"javaId\":1,", "\"cpus\":\"", "\"counters\":{",
                "\"coverage\":{", "\"unsupported\":{", "\"wallNanos\":")) {
            assertTrue(main.contains(field), field + " in " + main);
        }
        long faults = Long.parseLong(main.replaceAll("^.*?\"page-faults\":(\\d+).*$", "$1"));
        // main is counted from premain on: its 4096 pages, and what starting the application costs it.
        assertTrue(faults >= 4096, "16 MiB touched by main: " + faults + " faults");
    }

    @Test
    void aBadPidAndANonJvmHaveTheirExitCodes() throws Exception {
        assertEquals(ExitCode.NO_SUCH_PROCESS, CliRun.capture(() -> Perfpin.run("attach", "999999999")).code);
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            CliRun run = CliRun.capture(() -> Perfpin.run("attach", Long.toString(sleep.pid())));
            assertEquals(ExitCode.NOT_A_JVM, run.code, run.err);
        } finally {
            sleep.destroy();
        }
    }
}
