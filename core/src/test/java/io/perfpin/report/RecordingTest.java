package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.CounterSnapshots;
import io.perfpin.event.EventList;
import io.perfpin.event.EventLookup;
import io.perfpin.event.EventParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordingTest {
    private final EventList events =
            EventList.parse("page-faults,task-clock", new EventParser(Paths.get("/"), EventLookup.NOT_WIRED));

    @TempDir
    Path dir;

    @Test
    void eachThreadsFinalRecordElseItsLastSampleAndACutLastLineIsSkippedWithAWarning() throws IOException {
        String cut = line(ThreadRecords.SAMPLE, 5, "io-1", 12, 300);
        Path file = write(
                line(ThreadRecords.SAMPLE, 1, "io-1", 12, 100),
                line(ThreadRecords.SAMPLE, 1, "sampler-less", 13, 50),
                "{\"type\":\"later\",\"note\":\"a record type of a later version\"}",
                line(ThreadRecords.THREAD, 2, "io-1", 12, 200),
                line(ThreadRecords.SAMPLE, 3, "sampler-less", 13, 70),
                // A thread whose TID was reused: another Java thread id, another thread.
                line(ThreadRecords.THREAD, 4, "io-2", 12, 9).replace("\"javaId\":12", "\"javaId\":99"),
                cut.substring(0, cut.length() / 2));

        Recording recording = Recording.read(file);

        List<ThreadRecord> threads = recording.threads();
        assertEquals(
                List.of("io-1", "sampler-less", "io-2"),
                threads.stream().map(t -> t.report().name()).toList());
        assertTrue(threads.get(0).isFinal());
        assertEquals(200L, threads.get(0).report().counters().get("page-faults"), "the final record, not the cut one");
        assertFalse(threads.get(1).isFinal());
        assertEquals(70L, threads.get(1).report().counters().get("page-faults"), "its last sample");
        assertEquals(3, threads.get(1).epochMillis());
        assertTrue(
                recording.warning().orElseThrow().startsWith(file + " line 7 is not a perfpin record: expected"),
                recording.warning().orElseThrow());
    }

    /**
     * The run record's events come back in their order, a PMU event's commas and all; a recording of an older agent,
     * whose run record does not name them, has none; events that are not strings make the line no record.
     */
    @Test
    void theRunRecordsEventsComeBackInTheirOrder() throws IOException {
        List<String> selected = List.of("task-clock", "cpu/event=0x08,umask=0x0e/", "cycles");
        RunRecord run = new RunRecord(1, 2, Map.of("host", "h"), Map.of("java", "17"), selected);
        assertEquals(selected, Recording.read(write(run.toJson())).events());
        String older = run.toJson().replaceAll(",\"events\":\\[.*]", "");
        assertFalse(older.contains("events"), older);
        assertEquals(
                List.of(),
                Recording.read(write(older, line(ThreadRecords.THREAD, 1, "a", 1, 1)))
                        .events());
        Path bad = write(run.toJson().replace("\"cycles\"", "7"), line(ThreadRecords.THREAD, 1, "a", 1, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Recording.read(bad));
        assertTrue(e.getMessage().contains("field 'events' holds 7, expected strings"), e.getMessage());
    }

    @Test
    void aBadLineBeforeTheLastMakesTheFileNoRecording() throws IOException {
        Path file =
                write(line(ThreadRecords.THREAD, 1, "a", 1, 1), "not json", line(ThreadRecords.THREAD, 1, "b", 2, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Recording.read(file));
        assertTrue(e.getMessage().startsWith(file + " line 2 is not a perfpin record"), e.getMessage());
        IOException missing = assertThrows(IOException.class, () -> Recording.read(dir.resolve("missing.jsonl")));
        assertEquals(
                "cannot open " + dir.resolve("missing.jsonl") + ": no such file or directory", missing.getMessage());
    }

    @Test
    void aCompleteFileHasNoWarning() throws IOException {
        Recording recording = Recording.read(write(line(ThreadRecords.THREAD, 1, "a", 1, 1)));
        assertEquals(1, recording.threads().size());
        assertTrue(recording.warning().isEmpty());
    }

    /** A line longer than any record is read past with one warning, wherever it is, and the rest is read. */
    @Test
    void aLineLongerThanAnyRecordIsSkippedWithAWarningAndTheRestRead() throws IOException {
        String huge = "{\"type\":\"" + "x".repeat(JsonLinesReader.MAX_LINE_BYTES) + "\"}";
        Path file = write(
                huge,
                line(ThreadRecords.THREAD, 1, "a", 1, 1),
                huge,
                huge + huge,
                line(ThreadRecords.THREAD, 2, "b", 2, 1));
        Recording recording = Recording.read(file);
        assertEquals(
                List.of("a", "b"),
                recording.threads().stream().map(t -> t.report().name()).toList());
        assertEquals(
                file + " line 1 and 2 more longer than 1048576 bytes (1 MiB), which no record is; skipped them",
                recording.warning().orElseThrow());
        Path last = write(line(ThreadRecords.THREAD, 1, "a", 1, 1), huge);
        assertEquals(
                last + " line 2 longer than 1048576 bytes (1 MiB), which no record is; skipped it",
                Recording.read(last).warning().orElseThrow());
    }

    /**
     * A name too long for a record is cut, the record says so, and it reads back: a thread named with a megabyte
     * leaves the recording readable. A surrogate pair at the cut is not parted.
     */
    @Test
    void aNameLongerThanARecordKeepsIsCutAndSaidSo() throws IOException {
        String name = "x".repeat(ThreadRecords.MAX_NAME_CHARS - 1) + "\ud83d\ude00" + "y".repeat(1_100_000);
        String record = line(ThreadRecords.THREAD, 1, name, 1, 1);
        assertTrue(record.length() < 4 * ThreadRecords.MAX_NAME_CHARS, "a record of " + record.length() + " chars");
        assertTrue(record.contains(",\"nameCut\":true"), record);
        Recording recording = Recording.read(write(record, line(ThreadRecords.THREAD, 2, "b", 2, 1)));
        assertEquals(
                List.of("x".repeat(ThreadRecords.MAX_NAME_CHARS - 1), "b"),
                recording.threads().stream().map(t -> t.report().name()).toList());
        assertTrue(recording.warning().isEmpty());
        String whole = line(ThreadRecords.THREAD, 1, "z".repeat(ThreadRecords.MAX_NAME_CHARS), 1, 1);
        assertFalse(whole.contains("nameCut"), "a name of " + ThreadRecords.MAX_NAME_CHARS + " chars is kept whole");
    }

    @Test
    void aDeviceIsRefusedBeforeItIsOpened() {
        // /dev/zero would be one endless line: it is not even opened
        IOException e = assertTimeoutPreemptively(
                Duration.ofSeconds(60),
                () -> assertThrows(IOException.class, () -> Recording.read(Paths.get("/dev/zero"))));
        assertEquals("/dev/zero is a character device, not a regular file", e.getMessage());
    }

    @Test
    void aNameWithControlCharactersComesBackWhole() throws IOException {
        String name = "tab\there\nnew \u001b[31mred\u202eevil, half \ud83d and \ude00, whole \ud83d\ude00";
        String line = line(ThreadRecords.THREAD, 1, name, 1, 1);
        assertTrue(line.contains("half \\ud83d and \\ude00, whole \ud83d\ude00"), line);
        Recording recording = Recording.read(write(line));
        assertEquals(name, recording.threads().get(0).report().name());
    }

    private String line(String type, long time, String name, int tid, long faults) {
        CounterSnapshot counts = CounterSnapshots.of(new long[] {faults, 1_000_000}, 10, 10);
        return ThreadRecords.toJson(
                type, time, ThreadReport.of(name, tid, tid, "0-1", events, counts, List.of(), 2_000_000));
    }

    /**
     * The jvm record names the file its options named in named, leaving recording to a report that joins files
     * (the file each record was read from); an earlier perfpin's, which named it in recording, still reads.
     */
    @Test
    void theJvmRecordNamesItsFileInNamedAndAnEarlierOnesRecordingStillReads() throws IOException {
        JvmRecord jvm = new JvmRecord(7, 1000, Path.of("/tmp/run.jsonl"));
        assertEquals("{\"type\":\"jvm\",\"time\":1000,\"pid\":7,\"named\":\"/tmp/run.jsonl\"}", jvm.toJson());
        assertEquals(
                "{\"type\":\"jvm\",\"recording\":\"run.7.jsonl\",\"time\":1000,\"pid\":7,"
                        + "\"named\":\"/tmp/run.jsonl\"}",
                jvm.toJson(Path.of("run.7.jsonl")));
        for (String line : List.of(
                jvm.toJson(),
                jvm.toJson(Path.of("run.7.jsonl")),
                "{\"type\":\"jvm\",\"time\":1000,\"pid\":7,\"recording\":\"/tmp/run.jsonl\"}")) {
            assertEquals(jvm, Recording.read(write(line)).jvm().orElseThrow(), line);
        }
    }

    private Path write(String... lines) throws IOException {
        Path file = dir.resolve("run.jsonl");
        // The last line as a crash leaves it: no newline after it.
        Files.write(file, String.join("\n", lines).getBytes(StandardCharsets.UTF_8));
        return file;
    }
}
