package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.cpu.CpuSet;
import io.perfpin.report.EndRecord;
import io.perfpin.report.Recording;
import io.perfpin.testkit.PerfEventDescriptors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM whose files may not grow past 200,000 bytes ({@code prlimit --fsize}), as on a disk that filled up, with 60
 * parked threads counted and pinned to CPU 1 and a recording that outgrows the limit within a second: the recording
 * ends whole and marked incomplete, said once; counting and pins go on while the application runs, and the
 * application's own output is untouched, perfpin's lines apart.
 */
class FileSizeLimitIT {
    private static final long FILE_SIZE_LIMIT = 200_000;
    private static final int PARKED = 60;
    private static final long DEADLINE_SECONDS = 60;

    @Test
    void aRecordingPastTheFileSizeLimitEndsIncompleteAndTheApplicationRunsOnUntouched(@TempDir Path dir)
            throws Exception {
        String java = AppJvm.javas().findFirst().orElseThrow();
        Path out = dir.resolve("limited.jsonl");
        List<String> stderr;
        List<String> stdout;
        try (AppJvm app = AppJvm.withFileSizeLimit(
                FILE_SIZE_LIMIT,
                java,
                "threads=parked-.*;pin=parked-.*@1;events=sched;interval=50ms;out=" + out,
                dir)) {
            app.await("ready");
            assumeTrue(
                    CpuSet.parseList(Observed.cpusAllowed(app.pid(), (int) app.pid()))
                            .contains(1),
                    "needs CPU 1");
            app.send("park " + PARKED + " parked");
            app.await("parked " + PARKED);
            List<Integer> parked = awaitNamed(app.pid(), "parked-");
            for (int tid : parked) {
                assertEquals("1", Observed.awaitCpusAllowed(app.pid(), tid, "1"), "parked thread " + tid + " pinned");
            }

            awaitEnded(out);
            // The recording stopped; counting did not: the threads keep their descriptors and pins while they run.
            assertTrue(PerfEventDescriptors.of(app.pid()) >= PARKED, "counted while the application runs");
            assertEquals("1", Observed.cpusAllowed(app.pid(), parked.get(0)), "pinned while the application runs");

            assertEquals(0, app.finish(), "the application exits as it would without perfpin");
            stderr = app.stderr();
            stdout = app.lines();
        }

        List<String> notPerfpin =
                stderr.stream().filter(l -> !l.startsWith("[perfpin] ")).collect(Collectors.toList());
        assertEquals(List.of(), notPerfpin, "the application's stderr holds perfpin's lines only: " + stderr);
        assertEquals(List.of("ready", "parked " + PARKED, "done"), stdout, "the application's own stdout");
        List<String> stopped = stderr.stream()
                .filter(l -> l.startsWith("[perfpin] the recording " + out))
                .collect(Collectors.toList());
        assertEquals(1, stopped.size(), "the recording's failure is said once: " + stderr);
        assertTrue(stopped.get(0).contains("stopped: writing it failed: File too large"), stopped.get(0));

        assertTrue(Files.size(out) <= FILE_SIZE_LIMIT, "the file kept to the limit: " + Files.size(out));
        Recording recording = Recording.read(out);
        assertFalse(recording.warning().isPresent(), "whole records only: " + recording.warning());
        EndRecord end = recording.end().orElseThrow();
        assertFalse(end.complete());
        assertEquals("writing it failed: File too large", end.reason());
        List<String> lines = Files.readAllLines(out);
        String last = lines.get(lines.size() - 1);
        assertEquals(EndRecord.TYPE, Observed.value(last, "type"), "the end record is last: " + last);
    }

    /** Waits, with a deadline, for every parked thread to have its name: each gives the kernel its own, as it runs. */
    private static List<Integer> awaitNamed(long pid, String prefix) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        List<Integer> named = Observed.tidsNamed(pid, prefix);
        while (named.size() < PARKED) {
            assertTrue(System.nanoTime() < deadline, "the parked threads named within the deadline: " + named.size());
            Thread.sleep(10);
            named = Observed.tidsNamed(pid, prefix);
        }
        return named;
    }

    /**
     * Waits, with a deadline, for the recording's end record, read as {@code report} reads it (a last line still
     * being written passed over): the limit is reached within a second or so.
     */
    private static void awaitEnded(Path out) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        while (!Files.exists(out) || Recording.read(out).end().isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "the recording ended within " + DEADLINE_SECONDS + " s");
            Thread.sleep(20);
        }
    }
}
