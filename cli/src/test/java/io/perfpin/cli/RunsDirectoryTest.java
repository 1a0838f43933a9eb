package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.testkit.SystemProperty;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunsDirectoryTest {
    /**
     * run's own recordings past the budget are removed, oldest first; what else is in runs/ (another name, a link
     * named as a recording, a recording still locked by its writer) stays, as does what a link points to.
     */
    @Test
    void onlyRunsOwnOldestRecordingsPastTheBudgetAreRemoved(@TempDir Path dir) throws Exception {
        try (SystemProperty own = SystemProperty.set(PerfpinDirectory.PROPERTY, dir.toString())) {
            Path runs = PerfpinDirectory.open(PerfpinDirectory.RUNS).path();
            List<String> made = new ArrayList<>();
            int count = RunsDirectory.KEEP + 5;
            for (int i = 0; i < count; i++) {
                // a JVM that ran beside one: its own file, named by its pid
                String name = i % 5 == 4 ? "run-" + (1000 + i) + ".4321.jsonl" : "run-" + (1000 + i) + ".jsonl";
                Path file = Files.writeString(runs.resolve(name), "{}\n");
                Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000L * (i + 1)));
                made.add(name);
            }
            Path outside = Files.writeString(dir.resolve("keep.jsonl"), "mine\n");
            Files.createSymbolicLink(runs.resolve("run-1.jsonl"), outside);
            Files.writeString(runs.resolve("notes.txt"), "not perfpin's\n");
            Path locked = runs.resolve(made.get(0));
            PrintStream err = System.err;
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            Path next;
            try (FileChannel writer = FileChannel.open(locked, StandardOpenOption.WRITE);
                    FileLock lock = writer.lock()) {
                System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
                next = RunsDirectory.next();
                RunsDirectory.makeRoom();
            } finally {
                System.setErr(err);
            }

            Set<String> expected = new TreeSet<>(made.subList(count - RunsDirectory.KEEP, count));
            expected.addAll(List.of(made.get(0), "run-1.jsonl", "notes.txt"));
            try (Stream<Path> left = Files.list(runs)) {
                assertEquals(
                        expected,
                        new TreeSet<>(left.map(p -> p.getFileName().toString()).toList()));
            }
            assertEquals("mine\n", Files.readString(outside));
            assertEquals(
                    "perfpin run: removed the 4 oldest recordings in " + runs + ", which keeps the newest "
                            + RunsDirectory.KEEP + " (1 GiB at most); --record FILE keeps one elsewhere\n",
                    said.toString(StandardCharsets.UTF_8));
            assertEquals(runs, next.getParent());
            assertTrue(next.getFileName().toString().matches("run-\\d+\\.jsonl"), next.toString());
        }
    }

    /** A run refused before it starts (here for its --output) removes no recording: it made none to make room for. */
    @Test
    void aRunRefusedBeforeItStartsRemovesNoRecording(@TempDir Path dir) throws Exception {
        try (SystemProperty own = SystemProperty.set(PerfpinDirectory.PROPERTY, dir.toString())) {
            Path runs = PerfpinDirectory.open(PerfpinDirectory.RUNS).path();
            for (int i = 0; i < RunsDirectory.KEEP + 1; i++) {
                Files.writeString(runs.resolve("run-" + (1000 + i) + ".jsonl"), "{}\n");
            }
            CliRun run = CliRun.capture(() -> Perfpin.run("run", "--output", "/proc/self/x", "--", "java", "-version"));
            assertEquals(ExitCode.FAILURE, run.code, run.err);
            assertFalse(run.err.contains("removed"), run.err);
            try (Stream<Path> left = Files.list(runs)) {
                assertEquals(RunsDirectory.KEEP + 1, left.count());
            }
        }
    }
}
