package io.perfpin.cli;

import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportCommandTest {
    static final Pattern THREAD = Pattern.compile("thread page-toucher tid (\\d+) javaId (\\d+)");
    static final Pattern TOUCHED = Pattern.compile("touched (\\d+)");

    @TempDir
    Path dir;

    @Test
    void summarisesWhatAThreadRegistryRecordedPerThreadWithItsFinalRecord() throws Exception {
        Path recording = dir.resolve("run.jsonl");
        Matcher thread;
        long pages;
        try (ChildJvm child = ChildJvm.start(RegistryChild.class.getName(), dir.resolve("run.stats").toString(),
                recording.toString(), "32")) {
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
        CliRun toFile = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "csv",
                "--output", csv.toString()));
        assertEquals(ExitCode.OK, toFile.code, toFile.err);
        List<String> rows = Files.readAllLines(csv);
        assertTrue(rows.get(0).startsWith("name,tid,javaId,cpus,pin,task-clock,task-clock:coverage,context-switches,"),
                rows.get(0));
        assertTrue(rows.get(0).endsWith(",unsupported,type"), rows.get(0));
        assertTrue(rows.get(1).startsWith("page-toucher," + thread.group(1) + "," + thread.group(2) + ","), rows.get(1));
        assertTrue(rows.get(1).endsWith(",thread"), rows.get(1));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(csv)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(csv.getParent())));
    }

    @Test
    void aThreadOfAJvmThatDiedIsShownFromItsLastSampleAndACutLastLineOnlyWarns() throws Exception {
        Path recording = dir.resolve("crash.jsonl");
        String tid;
        try (ChildJvm child = ChildJvm.start(RegistryChild.class.getName(), dir.resolve("crash.stats").toString(),
                recording.toString(), "4")) {
            tid = child.await(THREAD).group(1);
            child.await(TOUCHED);
            awaitSampleOf(recording, tid);
            child.kill();
        }
        Files.writeString(recording, "{\"type\":\"sample\",\"time\":17954", StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);

        CliRun table = CliRun.capture(() -> Perfpin.run("report", recording.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertEquals(1, table.err.strip().split("\n").length, table.err);
        assertTrue(table.err.startsWith("perfpin report: " + recording + " line "), table.err);
        assertTrue(table.err.contains("skipped it, as a last line cut short by a crash"), table.err);
        assertTrue(table.out.contains("\npage-toucher  " + tid + "  "), table.out);
        assertTrue(table.out.contains("No final record, shown from the last live sample (the thread still ran when"
                + " the recording ended): page-toucher (tid " + tid + ")"), table.out);

        CliRun json = CliRun.capture(() -> Perfpin.run("report", recording.toString(), "--format", "json"));
        assertTrue(json.out.startsWith("{\"type\":\"sample\""), json.out);
    }

    @Test
    void aFileThatCannotBeReadIsOneLineWithExitCode1AndABadCommandLineExitCode2() throws Exception {
        CliRun missing = CliRun.capture(() -> Perfpin.run("report", dir.resolve("none.jsonl").toString()));
        assertEquals(ExitCode.FAILURE, missing.code);
        assertEquals("perfpin report: cannot read " + dir.resolve("none.jsonl") + ": no such file\n", missing.err);

        CliRun directory = CliRun.capture(() -> Perfpin.run("report", dir.toString()));
        assertEquals(ExitCode.FAILURE, directory.code);
        assertEquals(1, directory.err.strip().split("\n").length, directory.err);

        Path notOurs = dir.resolve("other.jsonl");
        Files.writeString(notOurs, "{\"a\":1}\n{\"b\":2}\n");
        CliRun other = CliRun.capture(() -> Perfpin.run("report", notOurs.toString()));
        assertEquals(ExitCode.FAILURE, other.code);
        assertEquals("perfpin report: " + notOurs + " line 1 is not a perfpin record: no string field 'type'\n",
                other.err);

        CliRun noFile = CliRun.capture(() -> Perfpin.run("report"));
        assertEquals(ExitCode.USAGE, noFile.code);
        assertEquals(1, noFile.err.strip().split("\n").length, noFile.err);
    }

    /** The sampler records every 50 ms: the first sample showing the touched pages is flushed by the next. */
    private static void awaitSampleOf(Path recording, String tid) throws Exception {
        Pattern sample = Pattern.compile("\\{\"type\":\"sample\".*\"tid\":" + tid + ",.*");
        for (int attempt = 0; attempt < 200; attempt++) {
            if (Files.exists(recording) && Files.readAllLines(recording).stream().anyMatch(l -> sample.matcher(l).matches())) {
                return;
            }
            Thread.sleep(25);
        }
        throw new AssertionError("no sample of tid " + tid + " in " + recording);
    }
}
