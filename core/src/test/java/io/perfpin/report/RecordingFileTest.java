package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One recording per JVM for one {@code out=}: the file named while no other process writes it, else the pid's file
 * beside it; and the family of files {@code report} reads for it.
 */
class RecordingFileTest {
    @TempDir
    Path dir;

    /** A second process, holding the file the way a JMH host's agent does, while this one asks for the same. */
    @Test
    void aFileAnotherProcessWritesIsLeftToItAndThisJvmWritesItsOwnBesideIt() throws Exception {
        Path named = dir.resolve("run.jsonl");
        long pid = ProcessHandle.current().pid();
        try (TestJvm holder = TestJvm.main(RecordingHolder.class)
                .args(named.toString(), "1000")
                .mergeStderr()
                .start()) {
            assertEquals("recording to " + named, holder.await("recording to "));
            try (JsonLinesFile mine = RecordingFile.create(named, pid, 2000)) {
                assertEquals(dir.resolve("run." + pid + ".jsonl"), mine.path());
                mine.write("{\"type\":\"mine\"}");
            }
            assertEquals(
                    List.of(new JvmRecord(holder.pid(), 1000, named).toJson(), "{\"type\":\"holder\"}"),
                    Files.readAllLines(named),
                    "the holder's file is whole and its own");
            assertEquals(
                    List.of(new JvmRecord(pid, 2000, named).toJson(), "{\"type\":\"mine\"}"),
                    Files.readAllLines(dir.resolve("run." + pid + ".jsonl")));
            assertEquals("rw-------", mode(dir.resolve("run." + pid + ".jsonl")));
            holder.closeInput();
            assertEquals(0, holder.exitWithin(Duration.ofSeconds(30)), "the holder ends once its input closes");
        }
        try (JsonLinesFile again = RecordingFile.create(named, pid, 3000)) {
            assertEquals(named, again.path(), "once no process writes it, the file named is taken, as before");
        }
    }

    @Test
    void theFamilyIsTheFileNamedAndTheFilesBesideItThatNamedItSinceItBegan() throws IOException {
        Path named = dir.resolve("run.jsonl");
        write(named, new JvmRecord(10, 5000, named));
        Path second = write(dir.resolve("run.12.jsonl"), new JvmRecord(12, 5200, named));
        Path first = write(dir.resolve("run.11.jsonl"), new JvmRecord(11, 5100, named));
        write(dir.resolve("run.9.jsonl"), new JvmRecord(9, 4000, named)); // left by an earlier run
        write(dir.resolve("run.13.jsonl"), new JvmRecord(13, 5300, dir.resolve("other.jsonl")));
        Files.writeString(dir.resolve("run.14.jsonl"), "{\"type\":\"thread\"}\n"); // no JvmRecord
        Files.createSymbolicLink(dir.resolve("run.15.jsonl"), first);
        write(dir.resolve("run.x.jsonl"), new JvmRecord(16, 5400, named));
        assertEquals(List.of(named, first, second), RecordingFile.family(named));
    }

    @Test
    void aRecordingWithoutItsJvmRecordStandsAlone() throws IOException {
        Path named = Files.writeString(dir.resolve("stat.jsonl"), "{\"type\":\"thread\"}\n");
        write(dir.resolve("stat.12.jsonl"), new JvmRecord(12, 5200, named));
        assertEquals(List.of(named), RecordingFile.family(named));
    }

    @Test
    void theChildsNameCarriesItsPidBeforeTheExtension() {
        assertEquals(Path.of("/r/run.42.jsonl"), RecordingFile.ofChild(Path.of("/r/run.jsonl"), 42));
        assertEquals(Path.of("/r/out.42"), RecordingFile.ofChild(Path.of("/r/out"), 42));
        assertEquals(Path.of("/r/.hidden.42"), RecordingFile.ofChild(Path.of("/r/.hidden"), 42));
    }

    private static Path write(Path file, JvmRecord jvm) throws IOException {
        return Files.writeString(file, jvm.toJson() + "\n{\"type\":\"thread\"}\n");
    }

    private static String mode(Path file) throws IOException {
        return java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    }
}
