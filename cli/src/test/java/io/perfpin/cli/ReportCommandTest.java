package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import io.perfpin.files.EffectiveUser;
import io.perfpin.options.ThreadPatterns;
import io.perfpin.report.EndRecord;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import io.perfpin.testkit.TestJvm;
import java.io.BufferedWriter;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportCommandTest {
    static final Pattern THREAD = Pattern.compile("thread page-toucher tid (\\d+) javaId (\\d+)");
    static final Pattern TOUCHED = Pattern.compile("touched (\\d+)");

    @TempDir
    Path dir;

    /**
     * A recording of run --threads '.*' holds the JVM's service threads too (DestroyJavaVM, say), which run's totals
     * showed: report without --threads shows the threads its agent was given (threads=), the rows run showed; with
     * --threads, those it names.
     */
    @Test
    void reportsDefaultSelectionIsTheRecordingsOwnThreadsOption() {
        Path recording = dir.resolve("all.jsonl");
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        CliRun run = CliRun.capture(() -> Perfpin.run(
                "run",
                "--threads",
                ".*",
                "--record",
                recording.toString(),
                "--format",
                "csv",
                "--",
                java,
                "-cp",
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                CountedChild.class.getName(),
                "200"));
        assertEquals(ExitCode.OK, run.code, run.err);
        CliRun report = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, report.code, report.err);
        List<String> shown = names(report.out);
        assertTrue(shown.stream().anyMatch(ThreadPatterns::isServiceThread), "a service thread too: " + shown);
        // run's CSV: its live windows' rows, then its totals' (type thread), whose names report shows again
        List<String> totals = new ArrayList<>();
        run.out
                .lines()
                .skip(1)
                .map(ReportCommandTest::fields)
                .filter(f -> f.size() > 2 && f.contains("thread"))
                .forEach(f -> totals.add(f.get(0)));
        assertEquals(totals.stream().sorted().toList(), shown.stream().sorted().toList(), run.out + report.out);

        CliRun main = CliRun.capture(
                () -> Perfpin.run("report", recording.toString(), "--format", "csv", "--threads", "main"));
        assertEquals(List.of("main"), names(main.out), main.out);
    }

    /** The thread names of a report's CSV, up to its methods' blank line. */
    private static List<String> names(String csv) {
        return csv.lines()
                .skip(1)
                .takeWhile(l -> !l.isEmpty())
                .map(l -> fields(l).get(0))
                .toList();
    }

    /** A CSV row's fields; the names here hold no comma or quote. */
    private static List<String> fields(String line) {
        return List.of(line.split(",", -1));
    }

    @Test
    void summarisesWhatAThreadRegistryRecordedPerThreadWithItsFinalRecord() throws Exception {
        Path recording = dir.resolve("run.jsonl");
        Matcher thread;
        long pages;
        try (ChildJvm child = ChildJvm.start(
                RegistryChild.class.getName(), dir.resolve("run.stats").toString(), recording.toString(), "32")) {
            thread = child.await(THREAD);
            pages = Long.parseLong(child.await(TOUCHED).group(1));
            child.send("end");
            child.await(Pattern.compile("closed"));
        }

        CliRun json = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, json.code, json.err);
        assertEquals("", json.err);
        String[] lines = json.out.strip().split("\n");
        assertEquals(1, lines.length, "one record per thread: " + json.out);
        ThreadRecord record = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(lines[0]));
        assertTrue(record.isFinal());
        ThreadReport r = record.report();
        assertEquals("page-toucher", r.name());
        assertEquals(Integer.parseInt(thread.group(1)), r.tid());
        assertEquals(Long.parseLong(thread.group(2)), r.javaId());
        long faults = r.counters().get("page-faults");
        assertTrue(Math.abs(faults - pages) <= pages * 0.03, faults + " page faults for " + pages + " pages");
        assertTrue(r.counters().get("task-clock") > 0, lines[0]);

        CliRun table = CliRun.capture(() -> Perfpin.run("report", recording.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertTrue(table.out.startsWith("thread  "), table.out);
        assertTrue(table.out.contains("\npage-toucher  " + thread.group(1) + "  "), table.out);
        assertTrue(!table.out.contains("No final record"), table.out);

        Path csv = dir.resolve("reports/run.csv");
        CliRun toFile = CliRun.capture(
                () -> Perfpin.run("report", recording.toString(), "--format", "csv", "--output", csv.toString()));
        assertEquals(ExitCode.OK, toFile.code, toFile.err);
        List<String> rows = Files.readAllLines(csv);
        assertTrue(
                rows.get(0).startsWith("name,tid,javaId,cpus,pin,task-clock,task-clock:coverage,context-switches,"),
                rows.get(0));
        assertTrue(rows.get(0).endsWith(",unsupported,source,type,time,wallNanos,state,pmu,nameCut"), rows.get(0));
        assertTrue(
                rows.get(1).startsWith("page-toucher," + thread.group(1) + "," + thread.group(2) + ","), rows.get(1));
        assertTrue(rows.get(1).matches(".*,thread,\\d+,\\d+,ended,,"), rows.get(1));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(csv)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(csv.getParent())));
    }

    @Test
    void aThreadOfAJvmThatDiedIsShownFromItsLastSampleAndACutLastLineOnlyWarns() throws Exception {
        Path recording = dir.resolve("crash.jsonl");
        String tid;
        try (ChildJvm child = ChildJvm.start(
                RegistryChild.class.getName(), dir.resolve("crash.stats").toString(), recording.toString(), "4")) {
            tid = child.await(THREAD).group(1);
            child.await(TOUCHED);
            awaitSampleOf(recording, tid);
            child.kill();
        }
        Files.writeString(
                recording, "{\"type\":\"sample\",\"time\":17954", StandardCharsets.UTF_8, StandardOpenOption.APPEND);

        CliRun table = CliRun.capture(() -> Perfpin.run("report", recording.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertEquals(1, table.err.strip().split("\n").length, table.err);
        assertTrue(table.err.startsWith("perfpin report: " + recording + " line "), table.err);
        assertTrue(table.err.contains("skipped it, as a last line cut short by a crash"), table.err);
        assertTrue(table.out.contains("\npage-toucher  " + tid + "  "), table.out);
        // Beside the line that says it, or under it when the two do not fit in 120 columns together: a TID of up
        // to three digits fits, one of four or more does not.
        String said = "No final record, shown from the last live sample (the thread still ran when the recording"
                + " ended):";
        String names = "page-toucher (tid " + tid + ")";
        String together = said + " " + names;
        assertTrue(
                table.out.contains(together.length() <= 120 ? together + "\n" : said + "\n  " + names + "\n"),
                table.out);
        assertTrue(table.out.lines().allMatch(line -> line.length() <= 120), table.out);

        CliRun json = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "json"));
        assertTrue(json.out.startsWith("{\"type\":\"sample\""), json.out);
    }

    @Test
    void aFileThatCannotBeReadIsOneLineWithExitCode1AndABadCommandLineExitCode2() throws Exception {
        CliRun missing = CliRun.capture(
                () -> Perfpin.run("report", dir.resolve("none.jsonl").toString()));
        assertEquals(ExitCode.FAILURE, missing.code);
        assertEquals(
                "perfpin report: cannot open " + dir.resolve("none.jsonl") + ": no such file or directory\n",
                missing.err);

        CliRun directory = CliRun.capture(() -> Perfpin.run("report", dir.toString()));
        assertEquals(ExitCode.FAILURE, directory.code);
        assertEquals(1, directory.err.strip().split("\n").length, directory.err);

        Path notOurs = dir.resolve("other.jsonl");
        Files.writeString(notOurs, "{\"a\":1}\n{\"b\":2}\n");
        CliRun other = CliRun.capture(() -> Perfpin.run("report", notOurs.toString()));
        assertEquals(ExitCode.FAILURE, other.code);
        assertEquals(
                "perfpin report: " + notOurs + " line 1 is not a perfpin record: no string field 'type'\n", other.err);

        // a recording is written by the JVM it records: what it names a simulated PMU is checked, as a stats file's is
        Path pmu = dir.resolve("pmu.jsonl");
        String thread = record(ThreadRecords.THREAD, "w", 7, 1);
        Files.writeString(
                pmu, thread.substring(0, thread.length() - 1) + ",\"pmu\":\"simulated\\u001b[2J\"}\n" + thread + "\n");
        CliRun hostile = CliRun.capture(() -> Perfpin.run("report", pmu.toString()));
        assertEquals(ExitCode.FAILURE, hostile.code);
        assertEquals(
                "perfpin report: " + pmu + " line 1 is not a perfpin record: field 'pmu' names no simulated PMU"
                        + " ('simulated MODEL')\n",
                hostile.err);

        CliRun noFile = CliRun.capture(() -> Perfpin.run("report"));
        assertEquals(ExitCode.USAGE, noFile.code);
        assertEquals(1, noFile.err.strip().split("\n").length, noFile.err);
    }

    @Test
    void aNameWithControlCharactersIsEscapedOnOneRowOfTheTableAndWholeInCsvAndJson() throws Exception {
        String name = "tab\there\nnew \u001b[31mred\u202eevil\u009b";
        Path recording = dir.resolve("names.jsonl");
        Files.writeString(
                recording,
                record(ThreadRecords.THREAD, name, 7, 42) + "\n" + record(ThreadRecords.THREAD, "plain", 8, 1) + "\n");

        CliRun table = CliRun.capture(() -> Perfpin.run("report", recording.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        List<String> rows = List.of(table.out.split("\n"));
        assertEquals(3, rows.size(), "a header and a row per thread: " + table.out);
        assertTrue(
                rows.get(1).matches(Pattern.quote("tab\\there\\nnew \\x1b[31mred\\u202eevil\\x9b") + " +7 +0-1 +42"),
                table.out);
        assertTrue(rows.get(2).startsWith("plain  "), table.out);
        assertTrue(table.out.chars().noneMatch(c -> c == 0x1b || c == 0x202e || c == '\t'), table.out);

        CliRun csv = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, csv.code, csv.err);
        assertTrue(csv.out.contains("\n\"" + name + "\",7,7,0-1,"), csv.out);

        CliRun json = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, json.code, json.err);
        String first = json.out.split("\n")[0];
        assertTrue(
                first.chars().noneMatch(c -> c < 0x20 || c == 0x9b || c == 0x202e),
                "controls and bidi overrides as escapes: " + first);
        assertEquals(
                name,
                ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(first))
                        .report()
                        .name());
    }

    /**
     * 100+ MB of samples, summarised by a JVM with a 48 MiB heap: report keeps one record per thread, whatever
     * the file's size, and shows each thread's final record or else its last sample.
     */
    @Test
    void aLargeRecordingIsSummarisedInASmallHeap() throws Exception {
        Path recording = dir.resolve("large.jsonl");
        long lines = 0;
        String[] sample = new String[4];
        String[] last = new String[4];
        for (int t = 0; t < sample.length; t++) {
            sample[t] = record(ThreadRecords.SAMPLE, "worker-" + t, 100 + t, PLACEHOLDER);
        }
        try (BufferedWriter out = Files.newBufferedWriter(recording, StandardCharsets.UTF_8)) {
            while (Files.size(recording) < 110_000_000L) {
                for (int i = 0; i < 10_000; i++, lines++) {
                    int t = (int) (lines % sample.length);
                    last[t] = sample[t].replace(Long.toString(PLACEHOLDER), Long.toString(lines));
                    out.write(last[t]);
                    out.write('\n');
                }
                out.flush();
            }
            out.write(record(ThreadRecords.THREAD, "worker-0", 100, 7));
            out.write('\n');
        }
        Path report = dir.resolve("report.json");
        ChildRun run = ChildRun.of(
                dir, "-Xmx48m", "report", recording.toString(), "--format", "json", "--output", report.toString());
        assertEquals(ExitCode.OK, run.code, run.err);
        List<String> records = Files.readAllLines(report);
        assertEquals(4, records.size(), records.toString());
        assertEquals(7L, counter(records.get(0), "page-faults"), "worker-0's final record");
        for (int t = 1; t < 4; t++) {
            assertEquals(counter(last[t], "page-faults"), counter(records.get(t), "page-faults"), "its last sample");
        }

        // One line larger than the child's heap, written a megabyte at a time: read past, and the record after it read.
        try (OutputStream out = Files.newOutputStream(recording)) {
            byte[] x = "x".repeat(1 << 20).getBytes(StandardCharsets.US_ASCII);
            out.write("{\"type\":\"".getBytes(StandardCharsets.US_ASCII));
            for (int mib = 0; mib < 64; mib++) {
                out.write(x);
            }
            out.write("\"}\n".getBytes(StandardCharsets.US_ASCII));
            out.write((record(ThreadRecords.THREAD, "worker-0", 100, 7) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        ChildRun huge = ChildRun.of(
                dir, "-Xmx48m", "report", recording.toString(), "--format", "csv", "--output", report.toString());
        assertEquals(ExitCode.OK, huge.code, huge.err);
        assertEquals(
                "perfpin report: " + recording + " line 1 longer than 1048576 bytes (1 MiB), which no record is;"
                        + " skipped it\n",
                huge.err);
        assertTrue(Files.readString(report).contains("\nworker-0,100,"), Files.readString(report));
    }

    /** An --output on a full disk: one line naming the file, and no half-written file left behind. */
    @Test
    void anOutputOnAFullDiskIsRemovedAndNamedOrKeptWhereItReplacedAFile() throws Exception {
        assumeTrue(EffectiveUser.uid() == 0, "mounting a tmpfs needs root");
        Optional<Path> mount = Programs.onPath("mount");
        Optional<Path> umount = Programs.onPath("umount");
        assumeTrue(mount.isPresent() && umount.isPresent(), "needs mount and umount on the PATH");
        Path recording = dir.resolve("many.jsonl");
        try (BufferedWriter out = Files.newBufferedWriter(recording, StandardCharsets.UTF_8)) {
            for (int t = 1; t <= 3_000; t++) {
                out.write(record(ThreadRecords.THREAD, "worker-" + t, t, t));
                out.write('\n');
            }
        }
        Path full = Files.createDirectory(dir.resolve("full"));
        assumeTrue(
                new ProcessBuilder(mount.get().toString(), "-t", "tmpfs", "-o", "size=200k", "tmpfs", full.toString())
                                .inheritIO()
                                .start()
                                .waitFor()
                        == 0,
                "cannot mount a tmpfs here");
        try {
            Path report = full.resolve("rep.json");
            CliRun run = CliRun.capture(() ->
                    Perfpin.run("report", recording.toString(), "--format", "json", "--output", report.toString()));
            assertEquals(ExitCode.FAILURE, run.code, run.err);
            assertEquals(
                    "perfpin report: --output " + report + ": No space left on device; removed the part written\n",
                    run.err);
            assertFalse(Files.exists(report), "no half-written report");
            // A file of the user's is replaced at the first write: removing the part written would leave nothing.
            Files.writeString(report, "precious");
            CliRun over = CliRun.capture(() ->
                    Perfpin.run("report", recording.toString(), "--format", "json", "--output", report.toString()));
            assertEquals(ExitCode.FAILURE, over.code, over.err);
            assertEquals(
                    "perfpin report: --output " + report + ": No space left on device; it holds the part written, in"
                            + " place of the file it replaced\n",
                    over.err);
            assertTrue(Files.size(report) > 0, "the part written stays");
        } finally {
            new ProcessBuilder(umount.get().toString(), full.toString())
                    .inheritIO()
                    .start()
                    .waitFor();
        }
    }

    /** A heap too small for a recording's threads is said in one line, with what to do, never a stack trace. */
    @Test
    void aHeapTooSmallForTheThreadsIsOneLine() throws Exception {
        Path recording = dir.resolve("many.jsonl");
        try (BufferedWriter out = Files.newBufferedWriter(recording, StandardCharsets.UTF_8)) {
            for (int t = 1; t <= 200_000; t++) {
                out.write(record(ThreadRecords.THREAD, "worker-" + t, t, t));
                out.write('\n');
            }
        }
        ChildRun run = ChildRun.of(dir, "-Xmx16m", "report", recording.toString(), "--format", "csv");
        assertEquals(ExitCode.FAILURE, run.code, run.err);
        assertTrue(
                run.err.matches("perfpin report: out of memory \\(a heap of \\d+ MiB\\): give it more with"
                        + " PERFPIN_JAVA_OPTS=-Xmx<size>, or give it less to read\n"),
                run.err);
    }

    @Test
    void aDeviceOrAFifoIsRefusedBeforeItIsOpenedInOneLine() throws Exception {
        // a FIFO with no writer would hold open(2) forever; /dev/zero is one endless line
        CliRun zero = assertTimeoutPreemptively(
                Duration.ofSeconds(60), () -> CliRun.capture(() -> Perfpin.run("report", "/dev/zero")));
        assertEquals(ExitCode.FAILURE, zero.code);
        assertEquals("perfpin report: /dev/zero is a character device, not a regular file\n", zero.err);

        Path fifo = dir.resolve("fifo.jsonl");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        CliRun pipe = assertTimeoutPreemptively(
                Duration.ofSeconds(60), () -> CliRun.capture(() -> Perfpin.run("report", fifo.toString())));
        assertEquals(ExitCode.FAILURE, pipe.code);
        assertEquals("perfpin report: " + fifo + " is a FIFO, not a regular file\n", pipe.err);
        CliRun page = assertTimeoutPreemptively(
                Duration.ofSeconds(60),
                () -> CliRun.capture(() -> Perfpin.run("report", "--format", "html", fifo.toString())));
        assertEquals(ExitCode.FAILURE, page.code);
        assertEquals("perfpin report: " + fifo + " is a FIFO, not a regular file\n", page.err);
    }

    /**
     * A recording that stopped early (a full disk) ends with a record that says so: the report shows what it holds,
     * and says in one line on stderr that it is incomplete, and why; a complete one says nothing of it.
     */
    @Test
    void aRecordingThatStoppedEarlyIsSaidIncompleteInOneLine() throws Exception {
        Path stopped = dir.resolve("stopped.jsonl");
        Path complete = dir.resolve("complete.jsonl");
        String thread = record(ThreadRecords.THREAD, "order-matcher", 4242, 17);
        Files.write(
                stopped,
                List.of(
                        thread,
                        EndRecord.incomplete(1_700_000_000_500L, "writing it failed: No space left on device")
                                .toJson()));
        Files.write(
                complete, List.of(thread, EndRecord.complete(1_700_000_000_500L).toJson()));

        CliRun table = CliRun.capture(() -> Perfpin.run("report", stopped.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertEquals(
                "perfpin report: " + stopped + ": the recording is incomplete: it stopped early, writing it"
                        + " failed: No space left on device\n",
                table.err);
        assertTrue(table.out.contains("order-matcher"), table.out);
        CliRun json = CliRun.capture(() -> Perfpin.run("report", stopped.toString(), "--format", "json"));
        assertTrue(json.out.startsWith("{\"type\":\"thread\""), "stdout stays records only: " + json.out);
        assertEquals(table.err, json.err);

        CliRun whole = CliRun.capture(() -> Perfpin.run("report", complete.toString()));
        assertEquals(ExitCode.OK, whole.code, whole.err);
        assertEquals("", whole.err);
    }

    /**
     * Several recordings in CSV and JSON follow one another, each row saying the file it was read from, in the
     * recording's order; in a table each recording's threads come busiest first (by task-clock) under its heading,
     * and the table says which ran on when the recording ended.
     */
    @Test
    void severalRecordingsAreJoinedWithTheirFileAndEachThreadsComeBusiestFirstWithTheirState() throws Exception {
        Path before = dir.resolve("before.jsonl");
        Path after = dir.resolve("after.jsonl");
        Files.write(
                before,
                List.of(
                        timed("idle", 11, 1_000_000L, ThreadState.ENDED),
                        timed("busy", 12, 9_000_000L, ThreadState.RUNNING),
                        timed("middle", 13, 5_000_000L, ThreadState.RUNNING)));
        Files.write(after, List.of(timed("busy", 21, 3_000_000L, ThreadState.ENDED)));

        CliRun json =
                CliRun.capture(() -> Perfpin.run("report", before.toString(), after.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, json.code, json.err);
        List<Map<?, ?>> records = json.out
                .lines()
                .<Map<?, ?>>map(l -> (Map<?, ?>) JsonReader.parse(l))
                .toList();
        assertEquals(
                List.of("idle", "busy", "middle", "busy"),
                records.stream().map(r -> r.get("name")).toList(),
                json.out);
        assertEquals(
                List.of(before.toString(), before.toString(), before.toString(), after.toString()),
                records.stream().map(r -> r.get("recording")).toList(),
                json.out);
        assertEquals(
                List.of(11L, 12L, 13L, 21L),
                records.stream().map(r -> r.get("tid")).toList(),
                json.out);

        CliRun csv =
                CliRun.capture(() -> Perfpin.run("report", before.toString(), after.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, csv.code, csv.err);
        List<String> rows = csv.out.lines().toList();
        assertEquals(5, rows.size(), "one header, a row per thread: " + csv.out);
        assertTrue(rows.get(0).startsWith("recording,name,tid,javaId,cpus,pin,task-clock,"), rows.get(0));
        assertTrue(rows.get(1).startsWith(before + ",idle,11,"), csv.out);
        assertTrue(rows.get(2).startsWith(before + ",busy,12,"), csv.out);
        assertTrue(rows.get(3).startsWith(before + ",middle,13,"), csv.out);
        assertTrue(rows.get(4).startsWith(after + ",busy,21,") && rows.get(4).endsWith(",ended,,"), csv.out);

        CliRun one = CliRun.capture(() -> Perfpin.run("report", before.toString(), "--format", "csv"));
        assertTrue(one.out.startsWith("name,tid,"), "one recording needs no recording column: " + one.out);

        CliRun table = CliRun.capture(() -> Perfpin.run("report", before.toString(), after.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        List<String> lines = table.out.lines().toList();
        assertEquals("Recorded in " + before + ":", lines.get(0), table.out);
        assertTrue(lines.get(1).matches("thread +tid +cpus +state +task-clock.*"), table.out);
        assertTrue(lines.get(2).matches("busy +12 +0-1 +running at exit +9\\.000 ms.*"), table.out);
        assertTrue(lines.get(3).matches("middle +13 +0-1 +running at exit +5\\.000 ms.*"), table.out);
        assertTrue(lines.get(4).matches("idle +11 +0-1 +ended +1\\.000 ms.*"), table.out);
        int second = lines.indexOf("Recorded in " + after + ":");
        assertTrue(second > 4 && lines.get(second - 1).isEmpty(), table.out);
        assertTrue(lines.get(second + 2).matches("busy +21 +0-1 +ended +3\\.000 ms.*"), table.out);
    }

    /** A recording named twice, however spelt (here also through a hard link), is reported once. */
    @Test
    void aRecordingNamedTwiceIsReportedOnce() throws Exception {
        Path recording = Files.writeString(
                dir.resolve("once.jsonl"),
                "{\"type\":\"thread\",\"time\":1700000000000,\"name\":\"main\",\"tid\":7,\"javaId\":1,"
                        + "\"cpus\":\"0-1\",\"pin\":\"none\",\"wallNanos\":50000000,"
                        + "\"counters\":{\"task-clock\":5000000},\"coverage\":{\"task-clock\":1.0},"
                        + "\"metrics\":{},\"unsupported\":{}}\n");
        Path link = Files.createLink(dir.resolve("other-name.jsonl"), recording);
        for (String format : List.of("table", "json", "csv")) {
            CliRun once = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", format));
            assertEquals(ExitCode.OK, once.code, once.err);
            CliRun twice = CliRun.capture(() -> Perfpin.run(
                    "report",
                    recording.toString(),
                    dir.resolve(".").resolve("once.jsonl").toString(),
                    link.toString(),
                    "--format",
                    format));
            assertEquals(ExitCode.OK, twice.code, twice.err);
            assertEquals(once.out, twice.out, format);
        }
    }

    /**
     * What a recording may hold that perfpin itself would not write: a thread name with half a character (a lone
     * surrogate, which Java allows and UTF-8 cannot carry) and a metric past a double's range ({@code 1e309},
     * infinite). Every format writes them, each its documented way, and the page is written whole.
     */
    @Test
    void halfACharacterInANameAndAnInfiniteMetricAreWrittenInEveryFormat() throws Exception {
        Path recording = dir.resolve("odd.jsonl");
        Files.writeString(
                recording,
                "{\"type\":\"thread\",\"time\":1700000000000,\"name\":\"half\\ud800name\","
                        + "\"tid\":7,\"javaId\":7,\"cpus\":\"0-1\",\"pin\":\"none\",\"wallNanos\":50000000,"
                        + "\"counters\":{\"task-clock\":5000000},\"coverage\":{\"task-clock\":1.0},"
                        + "\"metrics\":{\"cpu-utilisation\":1e309,\"ipc\":-1e309},\"unsupported\":{}}\n");

        Path page = dir.resolve("odd.html");
        CliRun html = CliRun.capture(
                () -> Perfpin.run("report", recording.toString(), "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, html.code, html.err);
        String text = Files.readString(page, StandardCharsets.UTF_8);
        assertTrue(text.strip().endsWith("</html>"), "a whole page");
        assertTrue(text.contains("half\\ud800name"), "half a character shown as a terminal shows it");

        CliRun csv = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, csv.code, csv.err);
        List<String> rows = csv.out.lines().toList();
        assertTrue(
                rows.get(0)
                        .startsWith(
                                "name,tid,javaId,cpus,pin,task-clock,task-clock:coverage,cpu-utilisation," + "ipc,"),
                csv.out);
        assertTrue(rows.get(1).startsWith("half\ufffdname,7,7,0-1,none,5000000,1,inf,-inf,"), csv.out);

        CliRun table = CliRun.capture(() -> Perfpin.run("report", recording.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertTrue(table.out.contains("\nhalf\\ud800name  "), "shown as Java writes it: " + table.out);

        CliRun json = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, json.code, json.err);
        Map<?, ?> record = (Map<?, ?>) JsonReader.parse(json.out.strip());
        assertEquals("half\ud800name", record.get("name"), "JSON keeps it whole, escaped");
        Map<?, ?> metrics = (Map<?, ?>) record.get("metrics");
        assertTrue(
                metrics.containsKey("cpu-utilisation") && metrics.get("cpu-utilisation") == null,
                "JSON has no infinity: null, as a value not computed: " + json.out);
    }

    /**
     * 1,000 virtual threads read as three rows: their group's totals, and the p50 and p99 of one of them, right under
     * the totals whatever the table is sorted by (the busiest members, when asked, after them), though the group's
     * totals row sorts below the threads' and each of its own rows has values of its own.
     */
    @Test
    void virtualThreadsAreShownByGroupWithTheirTotalsAndTheDistributionOfOne() throws Exception {
        List<String> lines = new ArrayList<>();
        lines.add(timed("main", 12, 3_000_000, ThreadState.ENDED));
        for (int i = 0; i < 1000; i++) {
            ThreadReport report = ThreadReport.fromValues(
                    "request-" + i,
                    ThreadRecords.VIRTUAL_TID,
                    100 + i,
                    "",
                    -1,
                    Map.of("task-clock", (i + 1) * 1_000L),
                    Map.of("task-clock", 1.0),
                    Map.of(),
                    Map.of());
            lines.add(ThreadRecords.virtualToJson(1_700_000_000_000L, report, 2, new int[] {41}));
        }
        Path recording = dir.resolve("virtual.jsonl");
        Files.write(recording, lines);
        CliRun table = CliRun.capture(() -> Perfpin.run("report", recording.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertEquals(4, table.out.strip().split("\n").length - 1, "a header and 4 rows: " + table.out);
        assertTrue(table.out.contains("\nrequest (1000 virtual threads)  "), table.out);
        assertTrue(table.out.contains("\nrequest p50 of one  ") && table.out.contains("0.500 ms"), table.out);
        assertTrue(table.out.contains("\nrequest p99 of one  ") && table.out.contains("0.990 ms"), table.out);
        assertFalse(table.out.contains("request-1"), "no member shown: " + table.out);
        assertEquals(
                List.of("main", "request (1000 virtual threads)", "request p50 of one", "request p99 of one"),
                rowNames(table.out),
                "sorted by task-clock, the default");
        CliRun byName = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--sort", "thread"));
        assertEquals(ExitCode.OK, byName.code, byName.err);
        assertEquals(
                List.of("main", "request (1000 virtual threads)", "request p50 of one", "request p99 of one"),
                rowNames(byName.out),
                "sorted by name");
        CliRun byCycles = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--sort", "cycles"));
        assertEquals(ExitCode.USAGE, byCycles.code, byCycles.err);
        assertTrue(
                byCycles.err.startsWith("perfpin report: --sort cycles: not among the columns of " + recording + ": "),
                byCycles.err);

        CliRun busiest = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--busiest-virtual", "2"));
        assertEquals(ExitCode.OK, busiest.code, busiest.err);
        assertEquals(
                List.of(
                        "main",
                        "request (1000 virtual threads)",
                        "request p50 of one",
                        "request p99 of one",
                        "request-999",
                        "request-998"),
                rowNames(busiest.out),
                "the two busiest on request, under its rows: " + busiest.out);
        CliRun bad = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--busiest-virtual", "0"));
        assertEquals(ExitCode.USAGE, bad.code, bad.err);
        assertTrue(bad.err.contains("bad count '0'"), bad.err);
    }

    /**
     * A --columns name that the recording does not hold is refused with what it holds: left out of the table, it was
     * once a column silently missing. A recording cut short before its run record says its events by its threads'
     * counts.
     */
    @Test
    void aColumnTheRecordingDoesNotHoldIsRefusedWithTheColumnsItHolds() throws Exception {
        Path recording = dir.resolve("columns.jsonl");
        Files.write(recording, List.of(timed("main", 10, 5_000_000L, ThreadState.ENDED)));
        CliRun shown = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--columns", "task-clock"));
        assertEquals(ExitCode.OK, shown.code, shown.err);
        assertEquals(
                "thread  tid  cpus  state  task-clock",
                shown.out.lines().findFirst().get().strip());
        CliRun refused = CliRun.capture(
                () -> Perfpin.run("report", recording.toString(), "--columns", "task-clock,page-faults"));
        assertEquals(ExitCode.USAGE, refused.code, refused.err);
        assertEquals(
                "perfpin report: --columns page-faults: not among the columns of " + recording + ": task-clock\n",
                refused.err);
    }

    /** The names of a table's rows, in its order: the first column, up to two spaces, of each line after the header. */
    private static List<String> rowNames(String table) {
        List<String> lines = List.of(table.strip().split("\n"));
        return lines.subList(1, lines.size()).stream()
                .map(line -> line.split(" {2,}")[0].strip())
                .toList();
    }

    /** A final record of a thread with {@code taskClock} ns of task-clock, as the agent writes one. */
    private static String timed(String name, int tid, long taskClock, ThreadState state) {
        return ThreadRecords.toJson(
                ThreadRecords.THREAD,
                1_700_000_000_000L,
                ThreadReport.fromValues(
                                name,
                                tid,
                                tid,
                                "0-1",
                                50_000_000L,
                                Map.of("task-clock", taskClock),
                                Map.of("task-clock", 1.0),
                                Map.of(),
                                Map.of())
                        .withState(state));
    }

    /** Replaced in a record's text by each line's own count. */
    private static final long PLACEHOLDER = 987_654_321_123L;

    private static String record(String type, String name, int tid, long pageFaults) {
        return ThreadRecords.toJson(
                type,
                1_700_000_000_000L,
                ThreadReport.fromValues(
                        name,
                        tid,
                        tid,
                        "0-1",
                        50_000_000L,
                        Map.of("page-faults", pageFaults),
                        Map.of("page-faults", 1.0),
                        Map.of(),
                        Map.of()));
    }

    private static long counter(String record, String event) {
        return ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(record))
                .report()
                .counters()
                .get(event);
    }

    /** perfpin in a JVM of its own, with JVM options; its output in a file, killed past a deadline. */
    private static final class ChildRun {
        int code;
        String err;

        static ChildRun of(Path dir, String jvmOption, String... args) throws Exception {
            try (TestJvm child = TestJvm.main(Perfpin.class)
                    .jvmOptions(jvmOption)
                    .args(args)
                    .outputTo(dir.resolve("child.out"))
                    .start()) {
                ChildRun run = new ChildRun();
                run.code = child.exitWithin(Duration.ofSeconds(300));
                run.err = child.errorOutput();
                return run;
            }
        }
    }

    /** The sampler records every 50 ms: the first sample showing the touched pages is flushed by the next. */
    private static void awaitSampleOf(Path recording, String tid) throws Exception {
        Pattern sample = Pattern.compile("\\{\"type\":\"sample\".*\"tid\":" + tid + ",.*");
        // the suite's deadline, not a few seconds: a loaded host delays the child's sampler
        long deadline = System.nanoTime() + TestJvm.DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(recording)
                    && Files.readAllLines(recording).stream()
                            .anyMatch(l -> sample.matcher(l).matches())) {
                return;
            }
            Thread.sleep(25);
        }
        throw new AssertionError("no sample of tid " + tid + " in " + recording);
    }
}
