package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.JsonReader;
import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.testkit.TestJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * perfpin run over real JMH (1.37) and its published samples, which forks a JVM per benchmark run and passes it the
 * agent with every option of its own JVM, out= included: every JVM records to a file of its own, report reads them
 * all from the file named, each JVM under its own heading, the forks' worker threads are shown live, and run exits
 * with JMH's exit code.
 */
class RunForkingJmhTest {
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    /** JMH, its two dependencies and its samples, from this test's class path: HtmlReportTest runs JMH too. */
    private static final String JMH_CLASS_PATH = Arrays.stream(
                    System.getProperty("java.class.path").split(":"))
            .filter(e -> e.contains("jmh-core")
                    || e.contains("jmh-samples")
                    || e.contains("jopt-simple")
                    || e.contains("commons-math3"))
            .collect(Collectors.joining(":"));

    private static final Pattern FRAME = Pattern.compile("--- [0-9:.]+  perfpin run  pid (\\d+)[^\\n]*  live threads");

    @TempDir
    Path dir;

    @Test
    void everyForkRecordsToItsOwnFileReportReadsThemAllAndRunExitsWithJmhsCode() throws Exception {
        Path record = dir.resolve("jmh.jsonl");
        CliRun run = runForkingJmh(record);
        assertEquals(0, run.code, "JMH's own exit code:\n" + run.out + run.err);

        List<Path> family = RecordingFile.family(record);
        assertEquals(3, family.size(), "the host JVM's recording and one per fork: " + family + "\n" + run.out);
        List<Long> pids = new ArrayList<>();
        for (Path file : family) {
            Recording recording = Recording.read(file); // whole: a damaged line would make it no recording
            assertTrue(recording.warning().isEmpty(), file + ": " + recording.warning());
            assertEquals(record, recording.jvm().orElseThrow().named(), file.toString());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            pids.add(recording.jvm().orElseThrow().pid());
        }
        List<Long> forks = pids.subList(1, 3);
        for (long fork : forks) {
            assertEquals(dir.resolve("jmh." + fork + ".jsonl"), family.get(pids.indexOf(fork)));
            assertTrue(shownLive(run.out).contains(fork), "fork " + fork + " shown live:\n" + run.out);
        }
        assertTrue(!forks.contains(pids.get(0)), "the host JVM writes the file named: " + pids);
        assertTrue(run.out.contains("-jmh-worker-1  "), "the workers, by the end of their names, live:\n" + run.out);

        CliRun report = CliRun.capture(() -> Perfpin.run("report", record.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, report.code, report.err);
        List<Map<?, ?>> records =
                report.out.lines().map(l -> (Map<?, ?>) JsonReader.parse(l)).collect(Collectors.toList());
        assertEquals(
                forks,
                records.stream()
                        .filter(r -> "jvm".equals(r.get("type")))
                        .map(r -> (Long) r.get("pid"))
                        .collect(Collectors.toList()),
                "report names each fork before its records:\n" + report.out);
        long workers = records.stream()
                .filter(r -> "thread".equals(r.get("type"))
                        && String.valueOf(r.get("name"))
                                .matches(".*JMHSample_22_FalseSharing\\.baseline-jmh-worker-[12]"))
                .count();
        assertEquals(4, workers, "two workers in each fork, each with its final record:\n" + report.out);
        assertEquals(
                4,
                records.stream()
                        .filter(r -> "thread".equals(r.get("type"))
                                && family.subList(1, 3).contains(Path.of((String) r.get("recording"))))
                        .count(),
                "each says the fork's file it was read from:\n" + report.out);

        CliRun table = CliRun.capture(() -> Perfpin.run("report", record.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertTrue(
                table.out.startsWith(
                        "JVM " + pids.get(0) + ", recorded in " + record + ":\n(it holds no thread" + " records)\n"),
                "the host JVM under its heading, with nothing to show:\n" + table.out);
        for (int i = 1; i < 3; i++) {
            String heading = "JVM " + pids.get(i) + ", started with the same agent options; recorded in "
                    + family.get(i) + ":\n";
            int at = table.out.indexOf(heading);
            assertTrue(at > 0, "fork " + pids.get(i) + " under its heading:\n" + table.out);
            String block = table.out.substring(at + heading.length()).split("\nJVM ")[0];
            // In 120 columns: by the start and the end of their names.
            assertEquals(
                    2,
                    block.lines()
                            .filter(l -> l.matches("org\\.openjdk.*-jmh-worker-[12] .*"))
                            .count(),
                    "its two workers:\n" + table.out);
        }
        TableWidthTest.assertFits("run", run.out);
        TableWidthTest.assertFits("report", table.out);

        CliRun csv = CliRun.capture(() -> Perfpin.run("report", record.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, csv.code, csv.err);
        List<String> rows = csv.out.lines().collect(Collectors.toList());
        assertTrue(rows.get(0).startsWith("recording,name,tid,"), csv.out);
        assertEquals(
                4,
                rows.stream()
                        .filter(r -> r.contains("baseline-jmh-worker-")
                                && (r.startsWith(family.get(1) + ",") || r.startsWith(family.get(2) + ",")))
                        .count(),
                csv.out);
    }

    @Test
    void runExitsWithJmhsCodeWhenJmhFails() throws Exception {
        List<String> jmh = List.of(
                JAVA, "-Djmh.ignoreLock=true", "-cp", JMH_CLASS_PATH, "org.openjdk.jmh.Main", "NoSuchBenchmark");
        int alone = TestJvm.program(jmh).mergeStderr().exitStatus();
        assertTrue(alone != 0, "JMH refuses a regex that matches no benchmark");
        Path record = dir.resolve("none.jsonl");
        List<String> args = new ArrayList<>(List.of("run", "--record", record.toString(), "--"));
        args.addAll(jmh);
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
        assertEquals(alone, run.code, "run exits with JMH's own exit code:\n" + run.out + run.err);
    }

    private static List<Long> shownLive(String out) {
        Matcher frame = FRAME.matcher(out);
        List<Long> pids = new ArrayList<>();
        while (frame.find()) {
            pids.add(Long.parseLong(frame.group(1)));
        }
        return pids;
    }

    /**
     * {@code perfpin run} over JMH's JMHSample_22 in two forks, counting the workers only (which run in the forks,
     * so the host JVM's recording holds no thread), recorded to {@code record} and beside it.
     */
    static CliRun runForkingJmh(Path record) {
        return CliRun.capture(() -> Perfpin.run(
                "run",
                "--interval",
                "100ms",
                "--threads",
                ".*jmh-worker.*",
                "--record",
                record.toString(),
                "--",
                JAVA,
                // JMH's host-wide lock keeps two benchmarks from timing each other: this run asserts what perfpin
                // counts, not a time, and another JMH on the host must not fail it
                "-Djmh.ignoreLock=true",
                "-cp",
                JMH_CLASS_PATH,
                "org.openjdk.jmh.Main",
                "JMHSample_22_FalseSharing.baseline",
                "-f",
                "2",
                "-wi",
                "1",
                "-w",
                "300ms",
                "-i",
                "1",
                "-r",
                "500ms",
                "-foe",
                "true"));
    }
}
