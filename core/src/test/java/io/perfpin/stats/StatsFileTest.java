package io.perfpin.stats;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.CounterSnapshots;
import io.perfpin.files.OwnedDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatsFileTest {
    @TempDir
    Path dir;

    @Test
    void aReaderSeesTheHeaderAndEachThreadsSlot() throws Exception {
        Path file = dir.resolve("run/4242.stats");
        try (StatsFile stats = StatsFile.create(file, 4242, 1_700_000_000_000L, 500_000_000L, 8, 4, 2)) {
            int[] columns = {stats.eventIndex("task-clock"), stats.eventIndex("page-faults")};
            int slot = stats.claimSlot(777, 12, "disruptor-1", "2-3");
            stats.publish(slot, 3, "2-3", CounterSnapshots.of(new long[] {5_000, 16_384}, 10_000, 10_000), columns);
            stats.heartbeat(1_700_000_000_500L);

            StatsFileReader reader = StatsFileReader.open(file);
            assertEquals(List.of("task-clock", "page-faults"), reader.eventNames());
            assertEquals(4242, reader.pid());
            assertEquals(500_000_000L, reader.intervalNanos());
            assertEquals(1_700_000_000_500L, reader.heartbeatEpochMillis());
            ThreadSample sample = reader.newSample();
            assertTrue(reader.read(slot, sample));
            assertEquals(StatsLayout.STATE_RUNNING, sample.state());
            assertEquals("disruptor-1", sample.name());
            assertEquals(777, sample.tid());
            assertEquals(12, sample.javaId());
            assertEquals(3, sample.lastCpu());
            assertEquals("2-3", sample.cpus());
            assertEquals(16_384, sample.raw(1));
            assertFalse(reader.isClosed());

            // A thread that counts its own events adds columns; the reader sees them appear.
            int tlb = stats.eventIndex("dTLB-load-misses");
            assertEquals(List.of("task-clock", "page-faults", "dTLB-load-misses"), reader.eventNames());
            int annotated = stats.claimSlot(778, 13, "annotated", "0");
            stats.publish(annotated, 0, "0", CounterSnapshots.of(new long[] {99}, 1, 1), new int[] {tlb});
            assertTrue(reader.read(annotated, sample));
            assertEquals(99, sample.raw(tlb));
            assertEquals(0, sample.enabledNanos(0), "a column the thread does not count stays empty");
            assertEquals(1, stats.eventIndex("page-faults"));
        }
        assertTrue(StatsFileReader.open(file).isClosed());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    }

    @Test
    void theFirstReasonAnEventWasRefusedIsKeptForReaders() throws Exception {
        Path file = dir.resolve("reasons.stats");
        try (StatsFile stats = StatsFile.create(file, 1, 0, 1, 2, 1, 1)) {
            int cycles = stats.eventIndex("cycles");
            int faults = stats.eventIndex("page-faults");
            stats.eventRefused(cycles, "no hardware PMU counts this here");
            stats.eventRefused(cycles, "a later thread's reason");
            StatsFileReader reader = StatsFileReader.open(file);
            assertEquals("no hardware PMU counts this here", reader.eventRefusal(cycles));
            assertEquals("", reader.eventRefusal(faults));
        }
    }

    @Test
    void staleFilesOfProcessesThatNoLongerRunAreRemovedAndNoOtherFile() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        long self = ProcessHandle.current().pid();
        OwnedDirectory jvms = OwnedDirectory.open(dir.resolve("jvms"), OwnedDirectory.Access.PRIVATE);
        Path dead = jvms.resolve(gone.pid() + ".stats");
        Path alive = jvms.resolve(self + ".stats");
        Path other = jvms.resolve("notes.stats");
        for (Path file : List.of(dead, alive, other)) {
            Files.writeString(file, "x");
        }
        assertEquals(1, StatsFile.removeStale(jvms));
        assertTrue(Files.notExists(dead));
        assertTrue(Files.exists(alive) && Files.exists(other));
    }

    @Test
    void finishedThreadsKeepTheirTotalsWhenTheRingOverflows() throws Exception {
        Path file = dir.resolve("churn.stats");
        try (StatsFile stats = StatsFile.create(file, 1, 0, 1, 1, 2, 2)) {
            int[] columns = {stats.eventIndex("page-faults")};
            long total = 0;
            for (int t = 1; t <= 7; t++) {
                // Odd threads ended before they got a live slot: their totals must be kept too.
                int slot = t % 2 == 0 ? stats.claimSlot(1000 + t, t, "worker-" + t, "0") : -1;
                stats.finish(slot, 1000 + t, t, "worker-" + t, "0",
                        CounterSnapshots.of(new long[] {100L * t}, t, t), columns);
                total += 100L * t;
            }
            StatsFileReader reader = StatsFileReader.open(file);
            assertEquals(7, reader.finishedTotal());
            ThreadSample sample = reader.newSample();
            long seen = 0;
            int threads = 0;
            for (int slot = 0; slot < reader.slots(); slot++) {
                reader.read(slot, sample);
                if (sample.state() == StatsLayout.STATE_FINISHED || sample.state() == StatsLayout.STATE_AGGREGATE) {
                    seen += sample.raw(0);
                    threads += sample.threads();
                }
                assertTrue(sample.state() != StatsLayout.STATE_RUNNING, "live slots were freed");
            }
            assertEquals(total, seen, "no finished thread's total is lost");
            assertEquals(7, threads);
        }
    }

    @Test
    void aReaderNeverSeesAHalfWrittenSlot() throws Exception {
        Path file = dir.resolve("torn.stats");
        int events = 8;
        try (StatsFile stats = StatsFile.create(file, 1, 0, 1, events, 1, 1)) {
            int[] columns = new int[events];
            for (int e = 0; e < events; e++) {
                columns[e] = stats.eventIndex("e" + e);
            }
            int slot = stats.claimSlot(1, 1, "writer", "0");
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                long[] values = new long[events];
                CounterSnapshot counts = CounterSnapshots.of(values, 0, 0);
                for (long v = 1; !stop.get(); v++) {
                    java.util.Arrays.fill(values, v);
                    CounterSnapshots.fill(counts, values, v, v);
                    stats.publish(slot, (int) (v % 2), "0", counts, columns);
                }
            });
            writer.start();
            StatsFileReader reader = StatsFileReader.open(file);
            ThreadSample sample = reader.newSample();
            for (int i = 0; i < 20_000; i++) {
                assertTrue(reader.read(slot, sample));
                for (int e = 1; e < events; e++) {
                    assertEquals(sample.raw(0), sample.raw(e), "torn read at event " + e);
                }
                assertEquals(sample.raw(0), sample.enabledNanos(events - 1));
            }
            stop.set(true);
            writer.join();
        }
    }
}
