package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.report.MethodRecord;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command that prints a table, on a JVM whose busy threads have JMH's names (71 characters, two that differ only
 * at their end) and a 200-character one, counting the default events: each line it prints fits
 * {@value ViewOptions#DEFAULT_WIDTH} columns by default, though its output is no terminal, every thread still has its
 * row, told apart by its name's start and end; with --wide the names are whole.
 */
class TableWidthTest {
    private static final int WIDTH = ViewOptions.DEFAULT_WIDTH;
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    private static final String JMH = "org.openjdk.jmh.samples.JMHSample_22_FalseSharing.baseline-jmh-worker-";
    private static final List<String> NAMES = List.of(JMH + "1", JMH + "2", "L" + "o".repeat(198) + "g");

    @Test
    void everyTableFits120ColumnsByDefaultAndWideShowsWholeNames(@TempDir Path dir) throws Exception {
        Path recording = dir.resolve("service.jsonl");
        // No events=: the agent's default ones, as a user who names none gets.
        try (ChildJvm service = ChildJvm.withAgent(
                "threads=(?s).*;interval=100ms;out=" + recording, "io.perfpin.apps.Service", "0", "120")) {
            service.await(Pattern.compile("ready"));
            for (String name : NAMES) {
                service.send("spin " + name);
                service.await(Pattern.compile("thread " + Pattern.quote(name) + " tid \\d+"));
            }
            String pid = Long.toString(service.pid());
            // The agent creates its stats file as it starts; top refuses one still being created.
            AgentSession.awaitAgent(service.pid(), null);
            try {
                fits("top", pid, "--duration", "1s");
                fits("attach", pid, "--duration", "1s");
                fits("stat", pid, "--duration", "1s");
                fits("stat", pid, "--interval", "300ms", "--duration", "1s");
                wide("top", pid, "--duration", "1s");
                wide("stat", pid, "--interval", "300ms", "--duration", "1s");
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
        // The JVM exited: the recording holds each thread's final record.
        fits("report", recording.toString());
        wide("report", recording.toString());
    }

    @Test
    void theMethodTableCutsLongMethodNamesToFit() {
        String method = "org.openjdk.jmh.samples.JMHSample_22_FalseSharing.baseline_jmhTest.baseline_thrpt_jmhStub("
                + "org.openjdk.jmh.runner.InfraControl, org.openjdk.jmh.results.RawResults)";
        MethodRecord record = new MethodRecord(
                MethodRecord.FINAL,
                2,
                method,
                20,
                Map.of("page-faults", 5134L),
                Map.of("page-faults", 256.7),
                Map.of("page-faults", 256L),
                Map.of("page-faults", 264L),
                Map.of("cycles", "no hardware PMU counts this here: " + "the reason is long ".repeat(10)),
                null);
        List<String> lines = MethodTable.render(List.of(record), WIDTH);
        lines.forEach(line -> assertTrue(TerminalText.width(line) <= WIDTH, "fits " + WIDTH + ": '" + line + "'"));
        String row = lines.stream()
                .filter(l -> l.contains("page-faults"))
                .findFirst()
                .orElseThrow();
        assertTrue(row.startsWith("org.openjdk.jmh") && row.contains("RawResults)"), "its start and end: " + row);
        assertTrue(String.join("\n", MethodTable.render(List.of(record), 0)).contains(method), "whole when not cut");
    }

    /**
     * run's live frames, totals and counted methods, of a JVM whose busy thread has a 200-character name: every line
     * fits, the thread's row told by its name's start and end; with --wide the name is whole.
     */
    @Test
    void runFits120ColumnsWithA200CharacterThreadName(@TempDir Path dir) {
        String name = NAMES.get(2);
        List<String> args = List.of(
                "run",
                "--threads",
                ".*",
                "--interval",
                "100ms",
                "--record",
                dir.resolve("run.jsonl").toString(),
                "--",
                JAVA,
                "-cp",
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                CountedChild.class.getName(),
                "2000",
                name);
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(String[]::new)));
        assertEquals(ExitCode.OK, run.code, run.err);
        assertFits("run", run.out);
        assertTrue(
                run.out.lines().anyMatch(l -> l.startsWith(name.substring(0, 8)) && l.contains("oog ")),
                "a row for the thread, by its start and end:\n" + run.out);
        List<String> wide = new ArrayList<>(args);
        wide.add(1, "--wide");
        wide.set(
                wide.indexOf(dir.resolve("run.jsonl").toString()),
                dir.resolve("wide.jsonl").toString());
        CliRun whole = CliRun.capture(() -> Perfpin.run(wide.toArray(String[]::new)));
        assertEquals(ExitCode.OK, whole.code, whole.err);
        assertTrue(whole.out.contains("\n" + name + " "), "whole with --wide:\n" + whole.out);
    }

    /**
     * list, with a JVM run from a jar whose path is some 200 characters (list names a jar's JVM by the jar): its row
     * fits, the path cut in its middle, keeping its start and the jar's name; with --wide the path is whole.
     */
    @Test
    void listCutsALongMainClassInItsMiddle(@TempDir Path dir) throws Exception {
        Path jar = dir.resolve("d".repeat(90)).resolve("service-" + "x".repeat(100) + ".jar");
        Files.createDirectories(jar.getParent());
        // No class of its own: it runs the Service from this test's class path, which its manifest names.
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "io.perfpin.apps.Service");
        manifest.getMainAttributes()
                .put(
                        Attributes.Name.CLASS_PATH,
                        Arrays.stream(ApplicationClassPath.withoutAgent(System.getProperty("java.class.path"))
                                        .split(":"))
                                .map(Path::of)
                                .map(e -> jar.getParent().relativize(e.toAbsolutePath())
                                        + (Files.isDirectory(e) ? "/" : ""))
                                .collect(Collectors.joining(" ")));
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.flush();
        }
        try (ChildJvm service = ChildJvm.startCommand(List.of(JAVA, "-jar", jar.toString(), "1", "120"))) {
            service.await(Pattern.compile("ready"));
            CliRun list = CliRun.capture(() -> Perfpin.run("list"));
            assertEquals(ExitCode.OK, list.code, list.err);
            assertFits("list", list.out);
            String row = list.out
                    .lines()
                    .filter(l -> l.matches(" *" + service.pid() + "  .*"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("a row for " + service.pid() + ":\n" + list.out));
            assertTrue(row.contains("  " + jar.toString().substring(0, 20)) && row.contains("xx.jar  "), row);
            CliRun wide = CliRun.capture(() -> Perfpin.run("list", "--wide"));
            assertTrue(wide.out.contains("  " + jar + "  "), "whole with --wide:\n" + wide.out);
        }
    }

    /**
     * The row that sums finished threads says what it sums in a sentence: with names too long to fit and every default
     * column, it stays whole where the names are cut, and the table still fits.
     */
    @Test
    void theSumRowsLabelIsNeverCutLikeAName() {
        List<String> events = List.of("task-clock", "context-switches", "cpu-migrations", "page-faults");
        List<ThreadReport> rows = new ArrayList<>();
        int tid = 1000;
        for (String name : NAMES) {
            rows.add(report(name, tid++, events).withState(tid % 2 == 0 ? ThreadState.ENDED : ThreadState.RUNNING));
        }
        String label = "(6 threads: 4 ended, 2 running at exit)";
        rows.add(report(label, 0, events));
        // The default columns, which give way where the widest label and the names cut shortest would not fit.
        List<String> lines = ReportTable.render(rows, RecordingReport.table(new ViewOptions()));
        String table = String.join("\n", lines);
        assertFits("a table with a sum row", table);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith(label + " ")), "the label whole:\n" + table);
        assertTrue(table.contains("running at exit"), "the rows in the label's words:\n" + table);
        for (String name : NAMES) {
            assertTrue(table.contains(name.substring(0, 8)) && !table.contains(name), "cut: " + name);
        }
    }

    /** A thread's (a sum's, with tid 0) values, large enough to fill their columns. */
    private static ThreadReport report(String name, int tid, List<String> events) {
        Map<String, Long> counters = new LinkedHashMap<>();
        events.forEach(e -> counters.put(e, 123_456_789_012L));
        return ThreadReport.fromValues(
                name,
                tid,
                tid,
                "0-1",
                1_000_000_000_000L,
                counters,
                Map.of(),
                ThreadReport.metrics(counters, 1_000_000_000_000L),
                Map.of());
    }

    /** {@code args} print each line in at most {@link #WIDTH} columns, and a row for each thread. */
    private static void fits(String... args) {
        CliRun run = CliRun.capture(() -> Perfpin.run(args));
        assertEquals(0, run.code, String.join(" ", args) + ": " + run.err);
        assertFits(String.join(" ", args), run.out);
        for (String name : NAMES) {
            // Cut in the middle: its start and its end, which tells the twins apart.
            String end = name.substring(name.length() - 3);
            assertTrue(
                    run.out.lines().anyMatch(l -> l.startsWith(name.substring(0, 8)) && l.contains(end + " ")),
                    String.join(" ", args) + ": a row for " + name + ":\n" + run.out);
        }
    }

    /** Each line of {@code out}, what {@code command} printed, fits {@link #WIDTH} terminal columns. */
    static void assertFits(String command, String out) {
        List<String> over =
                out.lines().filter(l -> TerminalText.width(l) > WIDTH).collect(Collectors.toList());
        assertTrue(over.isEmpty(), command + ": lines over " + WIDTH + " columns: " + over + "\n" + out);
    }

    /** With --wide, {@code args} print each name whole. */
    private static void wide(String... args) {
        List<String> wide = new ArrayList<>(List.of(args));
        wide.add("--wide");
        CliRun run = CliRun.capture(() -> Perfpin.run(wide.toArray(String[]::new)));
        assertEquals(0, run.code, wide + ": " + run.err);
        for (String name : NAMES) {
            assertTrue(run.out.contains("\n" + name + " "), wide + ": '" + name + "' whole:\n" + run.out);
        }
    }
}
