package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.PageToucher;
import io.perfpin.apps.Programs;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.jvm.AgentJar;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * run with java behind the programs that launch it: the agent lands right after java, the wrapper's effect
 * holds in the JVM, its main thread is recorded, and run exits with the application's exit code. Commands where
 * no java can be found are one line and exit 2, and nothing is started.
 */
class RunCommandTest {
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String CLASS_PATH = ApplicationClassPath.withoutAgent(System.getProperty("java.class.path"));

    @TempDir
    Path dir;

    @Test
    void javaBehindTasksetRunsOnlyOnTheCpusTasksetGaveIt() {
        String apps = PageToucher.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .getPath();
        CliRun run = run("taskset", "-c", "0", JAVA, "-cp", apps, "io.perfpin.apps.PageToucher", "16");
        assertEquals(0, run.code, run.err);
        ThreadReport main = mainRecord(run);
        assertEquals("0", main.cpus(), "main ran on CPU 0 only");
        long faults = main.counters().get("page-faults");
        assertTrue(faults >= 4096, "16 MiB touched by main: " + faults + " faults");
    }

    /**
     * run starts the agent by its native library (-agentpath), beside the jar it starts: the JVM keeps the module graph
     * that class-data sharing maps ready-made, which -javaagent would disable, and main is counted as from premain.
     */
    @Test
    void runStartsTheAgentByItsLibraryAndTheJvmKeepsItsModuleGraph() throws Exception {
        assumeTrue(
                AgentJar.startOption("", List.of()).startsWith("-agentpath:"),
                "the build had a C compiler, and made libperfpin-agent.so");
        Path log = dir.resolve("cds.log");
        CliRun run = run(JAVA, "-Xlog:cds=info:file=" + log, "-cp", CLASS_PATH, "io.perfpin.apps.MainReached");
        assertEquals(0, run.code, run.err);
        mainRecord(run);
        assertTrue(Files.readString(log).contains("full module graph: enabled"), Files.readString(log));
    }

    @Test
    void javaBehindEnvHasItsVariableAndRunExitsWithTheApplicationsCode() throws Exception {
        Path seen = dir.resolve("seen");
        CliRun run = run("env", "FOO=bar", JAVA, "-cp", CLASS_PATH, WrappedChild.class.getName(), seen.toString(), "3");
        assertEquals(3, run.code, run.err);
        mainRecord(run);
        assertTrue(Files.readString(seen).contains(" FOO=bar "), Files.readString(seen));
    }

    @Test
    void javaBehindNiceRunsAtTheNicenessItGave() throws Exception {
        Path seen = dir.resolve("seen");
        CliRun run =
                run("nice", "-n", "5", JAVA, "-cp", CLASS_PATH, WrappedChild.class.getName(), seen.toString(), "0");
        assertEquals(0, run.code, run.err);
        mainRecord(run);
        int expected = Math.min(19, WrappedChild.niceness(Files.readString(Path.of("/proc/self/stat"))) + 5);
        assertTrue(Files.readString(seen).endsWith(" nice=" + expected), Files.readString(seen));
    }

    /**
     * time forks java rather than becoming it: run finds the JVM among its children and watches it (the live view
     * names its pid, while the JVM waits for the test to release it), and time passes the JVM's exit code on.
     */
    @Test
    void javaBehindTimeWhichForksItIsWatchedAndItsCodeReturned() throws Exception {
        Optional<Path> time = Programs.onPath("time");
        assumeTrue(time.isPresent(), "GNU time is on the PATH (.ci/run installs it)");
        Path seen = dir.resolve("seen");
        Path release = dir.resolve("release");
        CliRun.Running running = CliRun.background(() -> Perfpin.run(arguments(
                time.get().toString(),
                "-o",
                dir.resolve("time.txt").toString(),
                JAVA,
                "-cp",
                CLASS_PATH,
                WrappedChild.class.getName(),
                seen.toString(),
                "4",
                release.toString())));
        String pid;
        try {
            pid = awaitSeen(seen).replaceAll("^pid=(\\d+) .*$", "$1");
            running.awaitOut(Pattern.compile("(?s).* pid " + pid + " .*"));
        } finally {
            Files.createFile(release);
        }
        CliRun run = running.join();
        assertEquals(4, run.code, run.err);
        assertTrue(
                run.out.contains(" pid " + pid + " "), "the live view watched the JVM, pid " + pid + ":\n" + run.out);
        mainRecord(run);
    }

    /**
     * run's report goes where --format and --output say, all of it: each thread's final record and the @Counted
     * methods, as JSON lines in FILE (a JVM that ends before the view begins included); the terminal gets the lines
     * for people and no JSON.
     */
    @Test
    void formatJsonOutputFileHoldsTheSamplesTheTotalsAndTheCountedMethods() throws Exception {
        Path report = dir.resolve("report.jsonl");
        CliRun run = CliRun.capture(() -> Perfpin.run(
                "run",
                "--threads",
                "main",
                "--record",
                dir.resolve("run.jsonl").toString(),
                "--format",
                "json",
                "--output",
                report.toString(),
                "--",
                JAVA,
                "-cp",
                CLASS_PATH,
                CountedChild.class.getName(),
                "200"));
        assertEquals(0, run.code, run.err);
        // JSON lines only: each line one object, read by perfpin's own reader.
        List<Map<?, ?>> records = Files.readAllLines(report).stream()
                .<Map<?, ?>>map(l -> (Map<?, ?>) JsonReader.parse(l))
                .toList();
        assertTrue(
                records.stream().anyMatch(r -> "thread".equals(r.get("type")) && "main".equals(r.get("name"))),
                "main's final record:\n" + records);
        assertTrue(
                records.stream()
                        .anyMatch(r -> "method".equals(r.get("type"))
                                && String.valueOf(r.get("method")).contains("touch")
                                && Long.valueOf(200).equals(r.get("calls"))),
                "the counted method, called 200 times:\n" + records);
        assertFalse(run.out.contains("{\""), "no JSON on the terminal:\n" + run.out);
        assertTrue(run.out.contains("Recorded in " + dir.resolve("run.jsonl")), run.out);
    }

    /** What the child wrote, once it has. */
    private static String awaitSeen(Path seen) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(seen)) {
                return Files.readString(seen);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the child wrote nothing to " + seen + " within " + DEADLINE);
    }

    @Test
    void aCommandWithNoJavaToFindIsOneLineWithExit2AndStartsNothing() throws Exception {
        Path record = dir.resolve("run.jsonl");
        CliRun run = CliRun.capture(
                () -> Perfpin.run("run", "--record", record.toString(), "--", "sh", "-c", "java -jar app.jar"));
        assertEquals(ExitCode.USAGE, run.code, run.err);
        assertEquals(
                "perfpin run: no java command in 'sh -c \"java -jar app.jar\"': 'sh' is neither java nor a"
                        + " program that perfpin looks through; put java first, or after taskset, numactl, env,"
                        + " nice, chrt, ionice, setpriv, sudo, stdbuf, time or nohup and their options; or load the"
                        + " agent yourself:"
                        + " JAVA_TOOL_OPTIONS='-javaagent:" + AgentJar.forThisUser() + "=events=sched;out=" + record
                        + ";quiet"
                        + "', and perfpin top PID (see perfpin run --help)\n",
                run.err);
        assertFalse(Files.exists(record), "nothing started, nothing recorded");
    }

    /**
     * A run that fails before its JVM records (a format run cannot write, an --output that is a directory, a java
     * that is not there) leaves the recording already at --record as it was: the agent replaces it once it records.
     */
    @Test
    void aRunThatFailsBeforeItsJvmRecordsLeavesAnEarlierRecordingAsItWas() throws Exception {
        Path record = Files.writeString(dir.resolve("precious.jsonl"), "{\"type\":\"end\",\"complete\":true}\n");
        Object inode = Files.getAttribute(record, "unix:ino");
        String app = "io.perfpin.apps.MainReached";
        List<List<String>> failures = List.of(
                List.of("--format", "html", "--", JAVA, "-cp", CLASS_PATH, app),
                List.of("--output", dir.toString(), "--", JAVA, "-cp", CLASS_PATH, app),
                List.of("--", dir.resolve("no-such-jdk/bin/java").toString(), "-cp", CLASS_PATH, app));
        for (List<String> failure : failures) {
            List<String> args = new ArrayList<>(List.of("run", "--record", record.toString()));
            args.addAll(failure);
            CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
            assertEquals(
                    failure.get(0).equals("--format") ? ExitCode.USAGE : ExitCode.FAILURE,
                    run.code,
                    failure.get(0) + ": " + run.err);
            assertEquals("{\"type\":\"end\",\"complete\":true}\n", Files.readString(record), failure.get(0));
            assertEquals(inode, Files.getAttribute(record, "unix:ino"), failure.get(0));
        }
        try (Stream<Path> made = Files.list(dir)) {
            assertEquals(List.of(record), made.toList(), "nothing else made, no probe left");
        }
    }

    /**
     * The agent closes its stats file in a shutdown hook, while the JVM still runs (here its application's own hook
     * naps after it, once longer than the 3 s a viewer once gave a JVM to end before it took the close for a detach):
     * a run of an application that ends by itself says that the JVM exited, never that the agent detached, as the
     * file says why it was closed.
     */
    @Test
    void aJvmThatEndsIsSaidToHaveExitedThoughItRanOnAfterItsAgentClosed() {
        for (String nap : List.of("500", "4000")) {
            CliRun run = CliRun.capture(() -> Perfpin.run(
                    "run",
                    "--interval",
                    "100ms",
                    "--record",
                    dir.resolve("run.jsonl").toString(),
                    "--",
                    JAVA,
                    "-cp",
                    CLASS_PATH,
                    SlowExitChild.class.getName(),
                    // main long enough for the view to begin on a loaded machine: the hook's nap is what is tried
                    "2000",
                    nap));
            assertEquals(0, run.code, run.err);
            assertTrue(
                    run.out.contains("\nperfpin run: the JVM exited. Totals per thread since it was enrolled:\n"),
                    "a hook of " + nap + " ms:\n" + run.out);
        }
    }

    /**
     * A JVM that turns the agent down (virtual threads on a JDK before 21) runs without it: run claims no recording,
     * says that the agent did not start (exit 7), and an earlier recording at --record is left as it was.
     */
    @Test
    void aJvmThatTurnsTheAgentDownIsExit7AndNoRecordingIsClaimed() throws Exception {
        assumeTrue(Runtime.version().feature() < 21, "a JDK before 21, which turns --virtual down");
        Path record = Files.writeString(dir.resolve("v.jsonl"), "{\"type\":\"end\",\"complete\":true}\n");
        CliRun run = CliRun.capture(() -> Perfpin.run(
                "run",
                "--virtual",
                "req-.*",
                "--record",
                record.toString(),
                "--",
                JAVA,
                "-cp",
                CLASS_PATH,
                "io.perfpin.apps.Sleeper",
                "5",
                "10"));
        assertEquals(ExitCode.ATTACH_FAILED, run.code, run.out + run.err);
        assertEquals("", run.out);
        assertTrue(
                run.err.matches("perfpin run: the agent did not start in process \\d+ \\(nothing was recorded in "
                        + Pattern.quote(record.toString()) + ", and the application exited with 0\\); the JVM's"
                        + " stderr has a \\[perfpin\\] line that says why\n"),
                run.err);
        assertEquals("{\"type\":\"end\",\"complete\":true}\n", Files.readString(record));
    }

    /** A pin to a CPU this machine does not have is a usage error before the JVM starts, as for stat and attach. */
    @Test
    void aPinToACpuRunsJvmCannotHaveIsExit2AndStartsNothing() throws Exception {
        int beyond = CpuTopology.live().online().last() + 1;
        Path record = dir.resolve("run.jsonl");
        CliRun run = CliRun.capture(() ->
                Perfpin.run("run", "--pin", "main@" + beyond, "--record", record.toString(), "--", JAVA, "-version"));
        assertEquals(ExitCode.USAGE, run.code, run.out + run.err);
        assertTrue(
                run.err.startsWith("perfpin run: placement " + beyond + ": CPU " + beyond + " is not online"), run.err);
        assertEquals("", run.out);
        assertFalse(Files.exists(record), "nothing started, nothing recorded");
    }

    /**
     * A java that is not there is said as such, with exit 1, whether the application's output goes to the terminal
     * or, behind CSV on standard output, to standard error.
     */
    @Test
    void aJavaThatIsNotThereCannotBeRunWhateverTheFormat() {
        Path missing = dir.resolve("no-such-jdk").resolve("java");
        for (String format : List.of("table", "csv")) {
            CliRun run = CliRun.capture(() -> Perfpin.run(
                    "run",
                    "--format",
                    format,
                    "--record",
                    dir.resolve("r.jsonl").toString(),
                    "--",
                    missing.toString(),
                    "-version"));
            assertEquals(ExitCode.FAILURE, run.code, format + ": " + run.err);
            assertTrue(run.err.contains("Cannot run program \"" + missing + "\""), format + ": " + run.err);
        }
    }

    /** Refused before anything starts: sudo need not be installed. */
    @Test
    void javaRunAsAnotherUserIsRefusedWithExit2() {
        CliRun run = CliRun.capture(() -> Perfpin.run("run", "--", "sudo", "-u", "perfpin-nobody", JAVA, "-version"));
        assertEquals(ExitCode.USAGE, run.code, run.err);
        assertEquals(
                "perfpin run: 'sudo -u perfpin-nobody " + JAVA + " -version' runs java as perfpin-nobody, whose"
                        + " JVM can neither read this user's agent jar nor write its recording: run perfpin itself as"
                        + " perfpin-nobody\n",
                run.err);
    }

    /**
     * 200 virtual threads under run --virtual, on the second JDK: run's totals show them as their group, with how
     * many it has and the p50 and p99 of one's totals, and never a row of one of them.
     */
    @Test
    void virtualThreadsAreShownByGroupInRunsTotals() {
        Optional<String> java = Programs.secondJava();
        assumeTrue(java.isPresent(), "virtual threads need JDK 21 or later: set JDK25_HOME");
        String apps = PageToucher.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .getPath();
        CliRun run = CliRun.capture(() -> Perfpin.run(
                "run",
                "--threads",
                "main",
                "--virtual",
                "vm-.*",
                "--record",
                dir.resolve("run.jsonl").toString(),
                "--",
                java.get(),
                "-cp",
                apps,
                "io.perfpin.apps.VirtualMounts",
                "--threads",
                "200",
                "--yields",
                "100"));
        assertEquals(0, run.code, run.err);
        // The JVM may end before run's live view begins (200 short virtual threads): its totals then come from its
        // recording, whose group row says how many it sums, rather than how many ended and run.
        assertTrue(
                Pattern.compile("(?m)^vm \\((members: 200 ended, 0 running|200 virtual threads)\\) .*\n"
                                + "vm p50 of one .*\nvm p99 of one ")
                        .matcher(run.out)
                        .find(),
                "the group of 200, the p50 and p99 right under it, the table sorted by task-clock:\n" + run.out);
        assertFalse(
                Pattern.compile("(?m)^\\s*vm-[0-9]+ ").matcher(run.out).find(),
                "no row per virtual thread:\n" + run.out);
    }

    private CliRun run(String... command) {
        String[] args = arguments(command);
        return CliRun.capture(() -> Perfpin.run(args));
    }

    /** perfpin run, selecting main and recording in this test's directory, of {@code command}. */
    private String[] arguments(String... command) {
        List<String> args = new ArrayList<>(List.of(
                "run", "--threads", "main", "--record", dir.resolve("run.jsonl").toString(), "--"));
        args.addAll(List.of(command));
        return args.toArray(new String[0]);
    }

    /** The main thread's final record in the run's recording, read by perfpin report. */
    private ThreadReport mainRecord(CliRun run) {
        assertTrue(run.out.contains("Recorded in " + dir.resolve("run.jsonl")), run.out);
        CliRun report = CliRun.capture(
                () -> Perfpin.run("report", dir.resolve("run.jsonl").toString(), "--format", "json"));
        assertEquals(0, report.code, report.err);
        return report.out
                .lines()
                .map(l -> (Map<?, ?>) JsonReader.parse(l))
                .filter(r -> "thread".equals(r.get("type")) && "main".equals(r.get("name")))
                .map(r -> ThreadRecord.fromJson(r).report())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no final record of main:\n" + report.out));
    }
}
