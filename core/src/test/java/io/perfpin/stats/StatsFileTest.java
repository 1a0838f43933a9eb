package io.perfpin.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.CounterSnapshots;
import io.perfpin.files.OwnedDirectory;
import io.perfpin.jvm.PidNamespace;
import io.perfpin.report.StatsWindows;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatsFileTest {
    static final long MILLISECOND = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void aReaderSeesTheHeaderAndEachThreadsSlot() throws Exception {
        Path file = dir.resolve("run/4242.stats");
        try (StatsFile stats = StatsFile.create(file, 4242, 1_700_000_000_000L, 500_000_000L, 8, 4, 2)) {
            int[] columns = {stats.eventIndex("task-clock"), stats.eventIndex("page-faults")};
            int slot = stats.claimSlot(Published.of(777, 12, "disruptor-1", "2-3"));
            stats.publish(
                    slot,
                    Published.counts("2-3", CounterSnapshots.of(new long[] {5_000, 16_384}, 10_000, 10_000), columns));
            stats.heartbeat(1_700_000_000_500L);

            try (StatsFileReader reader = StatsFileReader.open(file)) {
                StatsSnapshot snapshot = reader.snapshot();
                assertEquals(List.of("task-clock", "page-faults"), snapshot.eventNames());
                assertEquals(4242, reader.pid());
                assertEquals(500_000_000L, reader.intervalNanos());
                assertEquals(1_700_000_000_500L, reader.heartbeatEpochMillis());
                ThreadSample sample = thread(snapshot, 777);
                assertEquals(StatsLayout.STATE_RUNNING, sample.state());
                assertEquals("disruptor-1", sample.name());
                assertEquals(12, sample.javaId());
                assertEquals(-1, sample.lastCpu(), "a viewer reads it from /proc");
                assertTrue(sample.isOpened(0) && sample.isOpened(1));
                assertEquals("2-3", sample.cpus());
                assertEquals(16_384, sample.raw(1));
                assertFalse(reader.isClosed());

                // A thread that counts its own events adds columns; the reader sees them appear.
                int tlb = stats.eventIndex("dTLB-load-misses");
                int annotated = stats.claimSlot(Published.of(778, 13, "annotated", "0"));
                stats.publish(
                        annotated, Published.counts("0", CounterSnapshots.of(new long[] {99}, 1, 1), new int[] {tlb}));
                snapshot = reader.snapshot();
                assertEquals(List.of("task-clock", "page-faults", "dTLB-load-misses"), snapshot.eventNames());
                sample = thread(snapshot, 778);
                assertEquals(99, sample.raw(tlb));
                assertEquals(0, sample.enabledNanos(0), "a column the thread does not count stays empty");
                assertFalse(sample.isOpened(0), "and is not counted");
                assertEquals(1, stats.eventIndex("page-faults"));
            }
        }
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            assertEquals(StatsClosing.WHILE_RUNNING, reader.closing(), "closed while the JVM runs on: no exit");
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    }

    @Test
    void theFirstReasonAnEventWasRefusedIsKeptForReaders() throws Exception {
        Path file = dir.resolve("reasons.stats");
        try (StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, 2, 1, 1)) {
            int cycles = stats.eventIndex("cycles");
            int faults = stats.eventIndex("page-faults");
            stats.eventRefused(cycles, "no hardware PMU counts this here");
            stats.eventRefused(cycles, "a later thread's reason");
            try (StatsFileReader reader = StatsFileReader.open(file)) {
                StatsSnapshot snapshot = reader.snapshot();
                assertEquals("no hardware PMU counts this here", snapshot.eventRefusal(cycles));
                assertEquals("", snapshot.eventRefusal(faults));
            }
        }
    }

    /**
     * The events given at its creation are a file's columns in the first snapshot any reader can take: a viewer that
     * checks --columns against them as the file appears never finds none. More come after them as they are named.
     */
    @Test
    void theEventsGivenAtCreationAreTheColumnsOfTheFirstSnapshot() throws Exception {
        Path file = dir.resolve("columns.stats");
        List<String> events = List.of("task-clock", "page-faults");
        try (StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, 3, 1, 1, "", null, events);
                StatsFileReader reader = StatsFileReader.open(file)) {
            assertEquals(events, reader.snapshot().eventNames());
            assertEquals(1, stats.eventIndex("page-faults"));
            assertEquals(2, stats.eventIndex("context-switches"));
            assertEquals(
                    List.of("task-clock", "page-faults", "context-switches"),
                    reader.snapshot().eventNames());
        }
        // more than it can name: the first, as an event named later past its capacity is left out
        Path over = dir.resolve("over.stats");
        try (StatsFile stats = StatsFile.create(over, 1, 0, MILLISECOND, 1, 1, 1, "", null, events);
                StatsFileReader reader = StatsFileReader.open(over)) {
            assertEquals(List.of("task-clock"), reader.snapshot().eventNames());
        }
    }

    /** What the agent says reaches viewers in order, with its kind, as many as the file holds; no more. */
    @Test
    void noticesAndTheAgentsOptionsReachReaders() throws Exception {
        Path file = dir.resolve("notices.stats");
        String options = "threads=worker-.*;pin=worker-0@7;" + "x".repeat(2000) + ";quiet";
        try (StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, 1, 1, 1, options, null, List.of());
                StatsFileReader reader = StatsFileReader.open(file)) {
            assertEquals(List.of(), reader.snapshot().notices());
            List<AgentNotice> said = List.of(
                    AgentNotice.refused("cannot pin thread 'worker-0' (7): CPU 7 is outside 0-1"),
                    AgentNotice.notCounted("cycles", "no hardware PMU counts this here"),
                    AgentNotice.info("counting task-clock from /proc"),
                    AgentNotice.failure("recording failed", new IOException("File too large")));
            said.forEach(notice -> assertTrue(stats.notice(notice)));
            // read back by kind, each with its text: the subject and cause stay with the agent
            assertEquals(
                    said.stream().map(n -> new AgentNotice(n.kind(), n.text())).collect(Collectors.toList()),
                    reader.snapshot().notices());
            assertEquals(
                    "not counting cycles: no hardware PMU counts this here",
                    reader.snapshot().notices().get(1).text());
            assertEquals(
                    "recording failed: java.io.IOException: File too large",
                    reader.snapshot().notices().get(3).text());
            for (int n = said.size(); n < StatsLayout.NOTICE_CAPACITY; n++) {
                assertTrue(stats.notice(AgentNotice.info("notice " + n + " " + "\u00e9".repeat(200))));
            }
            assertFalse(
                    stats.notice(AgentNotice.refused("one too many")), "the file holds " + StatsLayout.NOTICE_CAPACITY);
            List<AgentNotice> all = reader.snapshot().notices();
            assertEquals(StatsLayout.NOTICE_CAPACITY, all.size());
            String cut = all.get(StatsLayout.NOTICE_CAPACITY - 1).text();
            assertTrue(cut.startsWith("notice 63 \u00e9") && cut.getBytes(StandardCharsets.UTF_8).length < 252, cut);

            OptionsText kept = reader.options();
            assertEquals(options, kept.shown());
            assertTrue(kept.whole() && kept.sameAs(options));
            assertFalse(kept.sameAs(options.replace("@7", "@1")));
        }
        // A text longer than the file keeps (what only multi-byte characters make) is cut, and compared whole.
        String long2 = "threads=" + "\u00e9".repeat(40_000);
        try (StatsFile stats = StatsFile.create(
                        dir.resolve("long.stats"), 1, 0, MILLISECOND, 1, 1, 1, long2, null, List.of());
                StatsFileReader reader = StatsFileReader.open(dir.resolve("long.stats"))) {
            OptionsText kept = reader.options();
            assertFalse(kept.whole());
            assertTrue(long2.startsWith(kept.shown()) && kept.sameAs(long2));
        }
    }

    @Test
    void staleFilesOfProcessesThatNoLongerRunAreRemovedAndNoOtherFile() throws Exception {
        long gone;
        try (TestJvm process = TestJvm.program("true").start()) {
            assertEquals(0, process.awaitExit());
            gone = process.pid();
        }
        long self = ProcessHandle.current().pid();
        OwnedDirectory jvms = OwnedDirectory.open(dir.resolve("jvms"));
        Path dead = jvms.resolve(gone + ".stats");
        Path alive = jvms.resolve(self + ".stats");
        Path other = jvms.resolve("notes.stats");
        // JVMs of another pid namespace, whose pids this /proc does not show: only a file that says its writer ended
        // goes; one written now (locked), one of a JVM that runs on after a detach, and one that says nothing stay
        String namespace = ".pidns-" + (PidNamespace.INITIAL + 12345) + ".stats";
        Path unknown = jvms.resolve("4" + namespace);
        for (Path file : List.of(dead, alive, other, unknown)) {
            Files.writeString(file, "x");
        }
        Path ended = jvms.resolve("2" + namespace);
        Path detached = jvms.resolve("3" + namespace);
        StatsFile.create(ended, 2, 0, MILLISECOND, 1, 1, 1).close(StatsClosing.AT_EXIT);
        StatsFile.create(detached, 3, 0, MILLISECOND, 1, 1, 1).close(StatsClosing.WHILE_RUNNING);
        Path live = jvms.resolve("1" + namespace);
        try (TestJvm writer = holder(live)) {
            assertEquals(2, StatsFile.removeStale(jvms));
            assertTrue(Files.exists(live));
        }
        assertTrue(Files.notExists(dead) && Files.notExists(ended));
        assertTrue(Files.exists(alive) && Files.exists(other) && Files.exists(detached) && Files.exists(unknown));
    }

    /** A file another process holds locked is its live stats file: never replaced, the create refused. */
    @Test
    void aFileAnotherProcessWritesIsNeverReplaced() throws Exception {
        Path file = dir.resolve("taken.stats");
        try (TestJvm writer = holder(file)) {
            Object written = Files.getAttribute(file, "unix:ino");
            assertThrows(
                    IOException.class, () -> StatsFile.create(file, 1, 0, MILLISECOND, 1, 1, 1), "created over a lock");
            assertEquals(written, Files.getAttribute(file, "unix:ino"), "the live file was replaced");
        }
    }

    /** A JVM that writes the stats file {@code file} until it is closed. */
    private static TestJvm holder(Path file) throws IOException {
        TestJvm writer = TestJvm.main(StatsHolder.class).args(file.toString()).start();
        writer.await("writing ");
        return writer;
    }

    @Test
    void finishedThreadsKeepTheirTotalsWhenTheRingOverflows() throws Exception {
        Path file = dir.resolve("churn.stats");
        try (StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, 1, 2, 2)) {
            int[] columns = {stats.eventIndex("page-faults")};
            long total = 0;
            for (int t = 1; t <= 7; t++) {
                // Odd threads ended before they got a live slot: their totals must be kept too.
                int slot = t % 2 == 0 ? stats.claimSlot(Published.of(1000 + t, t, "worker-" + t, "0")) : -1;
                stats.finish(
                        slot,
                        Published.of(
                                1000 + t,
                                t,
                                "worker-" + t,
                                "0",
                                CounterSnapshots.of(new long[] {100L * t}, t, t),
                                columns),
                        false);
                total += 100L * t;
            }
            try (StatsFileReader reader = StatsFileReader.open(file)) {
                StatsSnapshot snapshot = reader.snapshot();
                assertEquals(7, snapshot.finishedTotal());
                assertEquals(total, finishedSum(snapshot), "no finished thread's total is lost");
                assertEquals(
                        7,
                        snapshot.threads().stream()
                                .mapToInt(ThreadSample::threads)
                                .sum());
                assertTrue(
                        snapshot.threads().stream().noneMatch(s -> s.state() == StatsLayout.STATE_RUNNING),
                        "live slots were freed");
            }
        }
    }

    /**
     * Of more threads ended in one tick than the ring holds, those the ring would overwrite before the tick ends go to
     * the aggregate at once: once the tick is published, the file is as if each had been written to the ring.
     */
    @Test
    void threadsBeyondTheRingInOneTickLeaveTheFileAsTheRingWould() throws Exception {
        List<String> shown = new ArrayList<>();
        for (boolean direct : new boolean[] {false, true}) {
            Path file = dir.resolve(direct ? "direct.stats" : "ring.stats");
            try (StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, 4, 4, 2)) {
                int[] columns = {stats.eventIndex("task-clock"), stats.eventIndex("page-faults")};
                Published before =
                        Published.of(900, 9, "before", "0", CounterSnapshots.of(new long[] {1_000, 1}, 5, 5), columns);
                stats.finish(-1, before, false); // a tick before: in the ring
                stats.sampled(MILLISECOND, 1);
                int ended = 7;
                for (int t = 1; t <= ended; t++) {
                    int slot = t % 2 == 0 ? stats.claimSlot(Published.of(1000 + t, t, "worker-" + t, "0")) : -1;
                    Published thread = Published.of(
                            1000 + t,
                            t,
                            "worker-" + t,
                            "0",
                            CounterSnapshots.of(new long[] {100L * t, t}, 10L * t, 10L * t),
                            columns);
                    if (direct && t <= ended - stats.finishedSlots()) {
                        stats.finishIntoAggregate(slot, thread);
                    } else {
                        stats.finish(slot, thread, false);
                    }
                    if (direct && t == ended - stats.finishedSlots()) {
                        // nothing of them shows before the aggregate does: no thread is in no slot at all
                        try (StatsFileReader reader = StatsFileReader.open(file)) {
                            StatsSnapshot midway = reader.snapshot();
                            assertEquals(1, midway.finishedTotal());
                            assertEquals(
                                    List.of("worker-2", "worker-4"),
                                    midway.threads().stream()
                                            .filter(x -> x.state() == StatsLayout.STATE_RUNNING)
                                            .map(ThreadSample::name)
                                            .sorted()
                                            .collect(Collectors.toList()));
                        }
                    }
                }
                stats.sampled(2 * MILLISECOND, 2);
                try (StatsFileReader reader = StatsFileReader.open(file)) {
                    StatsSnapshot snapshot = reader.snapshot();
                    assertEquals(ended + 1, snapshot.finishedTotal());
                    shown.add(snapshot.threads().stream()
                            .map(s -> s.state() + " " + s.name() + " threads " + s.threads() + " " + s.raw(0) + "/"
                                    + s.enabledNanos(0) + "/" + s.runningNanos(0) + " " + s.raw(1))
                            .sorted()
                            .collect(Collectors.joining("\n")));
                }
            }
        }
        assertEquals(shown.get(0), shown.get(1));
        assertTrue(shown.get(1).contains("threads 6 2500/155/155 16"), shown.get(1)); // before and workers 1-5
    }

    @Test
    void aSlotTakenAgainShowsNoneOfTheColumnsItsLastThreadCounted() throws Exception {
        Path file = dir.resolve("reused.stats");
        // One live slot and one finished slot: each thread takes the slot the one before it let go.
        try (StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, 4, 1, 1)) {
            int taskClock = stats.eventIndex("task-clock");
            int faults = stats.eventIndex("page-faults");
            int[] both = {taskClock, faults};
            int[] faultsOnly = {faults};
            Published first =
                    Published.of(101, 1, "first", "0", CounterSnapshots.of(new long[] {5_000, 70}, 9, 9), both);
            stats.finish(stats.claimSlot(first), first, false);
            Published second =
                    Published.of(102, 2, "second", "0", CounterSnapshots.of(new long[] {30}, 4, 4), faultsOnly);
            int slot = stats.claimSlot(second);
            assertEquals(0, slot, "the slot the first thread let go");

            try (StatsFileReader reader = StatsFileReader.open(file)) {
                ThreadSample live = thread(reader.snapshot(), 102);
                assertEquals(StatsLayout.STATE_RUNNING, live.state());
                assertEquals(30, live.raw(faults));
                assertEquals(0, live.raw(taskClock), "the first thread's task-clock is not the second's");
                assertEquals(0, live.enabledNanos(taskClock));
                assertFalse(live.isOpened(taskClock));

                stats.finish(slot, second, false); // the ring's one slot: the first thread goes to the aggregate
                StatsSnapshot snapshot = reader.snapshot();
                ThreadSample finished = thread(snapshot, 102);
                assertEquals(StatsLayout.STATE_FINISHED, finished.state());
                assertEquals(30, finished.raw(faults));
                assertEquals(0, finished.raw(taskClock), "nor in the finished ring");
                assertEquals(0, finished.runningNanos(taskClock));
                ThreadSample older = snapshot.threads().stream()
                        .filter(s -> s.state() == StatsLayout.STATE_AGGREGATE)
                        .findFirst()
                        .orElseThrow();
                assertEquals(5_000, older.raw(taskClock));
                assertEquals(70, older.raw(faults));

                Published third = Published.of(
                        103, 3, "third", "0", CounterSnapshots.of(new long[] {1_000}, 2, 2), new int[] {taskClock});
                stats.finish(-1, third, false); // the second goes to the aggregate: only its column changes
                older = reader.snapshot().threads().stream()
                        .filter(s -> s.state() == StatsLayout.STATE_AGGREGATE)
                        .findFirst()
                        .orElseThrow();
                assertEquals(2, older.threads());
                assertEquals(5_000, older.raw(taskClock), "a sum the second thread did not add to stays");
                assertEquals(100, older.raw(faults));
                assertEquals(9 + 4, older.enabledNanos(faults));
            }
        }
    }

    @Test
    void aReaderNeverSeesAHalfWrittenSlot() throws Exception {
        Path file = dir.resolve("torn.stats");
        int events = 8;
        try (StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, events, 1, 1)) {
            int[] columns = new int[events];
            for (int e = 0; e < events; e++) {
                columns[e] = stats.eventIndex("e" + e);
            }
            int slot = stats.claimSlot(Published.of(1, 1, "writer", "0"));
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                long[] values = new long[events];
                CounterSnapshot counts = CounterSnapshots.of(values, 0, 0);
                for (long v = 1; !stop.get(); v++) {
                    java.util.Arrays.fill(values, v);
                    CounterSnapshots.fill(counts, values, v, v);
                    stats.publish(slot, Published.counts("0", counts, columns));
                    // A breath between updates, as the sampler takes between slots: without it the slot would
                    // be mid-update nearly all the time, and a reader would wait its settle time out.
                    for (int i = 0; i < 16; i++) {
                        Thread.onSpinWait();
                    }
                }
            });
            writer.start();
            try (StatsFileReader reader = StatsFileReader.open(file)) {
                for (int i = 0; i < 20_000; i++) {
                    ThreadSample sample = thread(reader.snapshot(), 1);
                    for (int e = 1; e < events; e++) {
                        assertEquals(sample.raw(0), sample.raw(e), "torn read at event " + e);
                    }
                    assertEquals(sample.raw(0), sample.enabledNanos(events - 1));
                }
            } finally {
                stop.set(true);
                writer.join(10_000);
            }
        }
    }

    @Test
    void theWriterTakesNoDecisionFromWhatTheFileSays() throws Exception {
        Path file = dir.resolve("scribbled.stats");
        try (StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, 1, 2, 1)) {
            int[] columns = {stats.eventIndex("page-faults")};
            int first = stats.claimSlot(Published.of(101, 1, "first", "0"));
            stats.publish(first, Published.counts("0", CounterSnapshots.of(new long[] {100}, 1, 1), columns));
            // Someone else writes the file: every slot looks taken, mid-update and full of counts.
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                int slots = 2 + 1 + 1;
                for (int slot = 0; slot < slots; slot++) {
                    long offset = StatsLayout.headerSize(1) + (long) slot * StatsLayout.slotSize(1);
                    put(channel, offset + StatsLayout.SEQUENCE_OFFSET, 7L);
                    put(channel, offset + StatsLayout.COUNTERS_OFFSET, 1_000_000L);
                    if (slot == 1) {
                        put(channel, offset + StatsLayout.STATE_OFFSET, (long) StatsLayout.STATE_RUNNING);
                    }
                }
                put(channel, StatsLayout.FINISHED_TOTAL_OFFSET, 41L);
            }
            int second = stats.claimSlot(Published.of(102, 2, "second", "0"));
            assertEquals(1, second, "the slot the file calls taken is free for the writer");
            stats.finish(
                    first,
                    Published.of(101, 1, "first", "0", CounterSnapshots.of(new long[] {100}, 1, 1), columns),
                    false);
            stats.finish(
                    second,
                    Published.of(102, 2, "second", "0", CounterSnapshots.of(new long[] {20}, 1, 1), columns),
                    false);

            try (StatsFileReader reader = StatsFileReader.open(file)) {
                StatsSnapshot snapshot = reader.snapshot();
                assertEquals(2, snapshot.finishedTotal());
                assertEquals(120, finishedSum(snapshot), "the aggregate holds the writer's sums, not the file's");
                assertEquals(
                        List.of("second", "(older finished threads)"),
                        snapshot.threads().stream().map(ThreadSample::name).collect(Collectors.toList()));
            }
        }
    }

    @Test
    void theWriterTellsAFileTruncatedRemovedOrReplacedUnderIt() throws Exception {
        Path truncated = dir.resolve("truncated.stats");
        StatsFile cut = StatsFile.create(truncated, 1, 0, MILLISECOND, 1, 1, 1);
        assertNull(cut.damage());
        long size = Files.size(truncated);
        try (FileChannel channel = FileChannel.open(truncated, StandardOpenOption.WRITE)) {
            channel.truncate(size - 1);
        }
        assertEquals("it was truncated to " + (size - 1) + " bytes (" + size + " expected)", cut.damage());
        cut.abandon();

        Path removed = dir.resolve("removed.stats");
        try (StatsFile stats = StatsFile.create(removed, 1, 0, MILLISECOND, 1, 1, 1)) {
            Files.delete(removed);
            assertEquals("it was removed", stats.damage());
        }

        Path replaced = dir.resolve("replaced.stats");
        try (StatsFile stats = StatsFile.create(replaced, 1, 0, MILLISECOND, 1, 1, 1)) {
            Path other = dir.resolve("other");
            Files.write(other, Files.readAllBytes(replaced));
            Files.move(other, replaced, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            assertEquals("another file took its place", stats.damage());
        }
    }

    @Test
    void theWriterRefusesAFileNoReaderWouldAccept() {
        Path file = dir.resolve("refused.stats");
        for (long[] bad : new long[][] {
            {0, 1, 1, MILLISECOND, 1},
            {StatsLayout.MAX_EVENT_CAPACITY + 1, 1, 1, MILLISECOND, 1},
            {1, 0, 1, MILLISECOND, 1},
            {1, 1, StatsLayout.MAX_FINISHED_SLOTS + 1, MILLISECOND, 1},
            {1, 1, 1, MILLISECOND - 1, 1},
            {1, 1, 1, StatsLayout.MAX_INTERVAL_NANOS + 1, 1},
            {1, 1, 1, MILLISECOND, 0}
        }) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> StatsFile.create(file, bad[4], 0, bad[3], (int) bad[0], (int) bad[1], (int) bad[2]),
                    Arrays.toString(bad));
        }
        assertTrue(Files.notExists(file));
    }

    /**
     * Virtual threads reach the file by group only: 200 of them are four slots (totals, p50, p99, running) that a
     * viewer shows as three rows, and a frame shows a group again only when a member joined it, with what that one
     * added.
     */
    @Test
    void virtualThreadsAreShownByGroupWithTheirCountAndPercentiles() throws Exception {
        Path file = dir.resolve("virtual.stats");
        try (StatsFile stats = StatsFile.create(file, 4242, 0, MILLISECOND, 2, 4, 4);
                StatsFileReader reader = StatsFileReader.open(file)) {
            int[] columns = {stats.eventIndex("task-clock")};
            for (int i = 1; i <= 200; i++) {
                assertTrue(stats.virtualEnded("vt", CounterSnapshots.of(new long[] {i * 1_000L}, 7, 7), columns));
            }
            stats.publishVirtualGroups(5 * MILLISECOND);
            stats.sampled(5 * MILLISECOND, 1);
            StatsSnapshot snapshot = reader.snapshot();
            List<ThreadSample> group = snapshot.threads().stream()
                    .filter(ThreadSample::isVirtualGroup)
                    .collect(Collectors.toList());
            assertEquals(
                    List.of(
                            StatsLayout.STATE_VIRTUAL_GROUP,
                            StatsLayout.STATE_VIRTUAL_P50,
                            StatsLayout.STATE_VIRTUAL_P99,
                            StatsLayout.STATE_VIRTUAL_RUNNING),
                    group.stream().map(ThreadSample::state).collect(Collectors.toList()));
            assertEquals(200, group.get(0).threads());
            assertEquals("vt", group.get(0).name());
            assertEquals(1_000L * 200 * 201 / 2, group.get(0).raw(0), "the members' totals summed");
            assertEquals(200 * 7, group.get(0).enabledNanos(0));
            long p50 = group.get(1).raw(0);
            long p99 = group.get(2).raw(0);
            assertTrue(p50 <= 100_000 && 100_000 - p50 <= 100_000 / 32, "p50 " + p50);
            assertTrue(p99 <= 198_000 && 198_000 - p99 <= 198_000 / 32, "p99 " + p99);
            assertNull(StatsWindows.finishedSum(snapshot, "running"), "virtual threads are not finished threads");

            StatsWindows windows = new StatsWindows(4242);
            assertEquals(
                    List.of("vt (members: 200 ended, 0 running)", "vt p50 of one", "vt p99 of one"),
                    windows.next(snapshot).virtualGroups().stream()
                            .map(ThreadReport::name)
                            .collect(Collectors.toList()));
            stats.sampled(6 * MILLISECOND, 2);
            assertEquals(List.of(), windows.next(reader.snapshot()).virtualGroups(), "no member joined since");
            stats.virtualEnded("vt", CounterSnapshots.of(new long[] {3_000}, 7, 7), columns);
            stats.publishVirtualGroups(7 * MILLISECOND);
            stats.sampled(7 * MILLISECOND, 3);
            ThreadReport added = windows.next(reader.snapshot()).virtualGroups().get(0);
            assertEquals("vt (members: 201 ended, 0 running)", added.name());
            assertEquals(3_000L, added.counters().get("task-clock"), "what the one that joined added");

            for (int g = 1; g < StatsLayout.VIRTUAL_GROUPS; g++) {
                assertTrue(stats.virtualEnded("group" + g, CounterSnapshots.of(new long[] {1}, 1, 1), columns));
            }
            assertFalse(
                    stats.virtualEnded("one-too-many", CounterSnapshots.of(new long[] {1}, 1, 1), columns),
                    "the file shows " + StatsLayout.VIRTUAL_GROUPS + " groups");
            stats.publishVirtualGroups(8 * MILLISECOND);
            assertEquals(
                    3 * StatsLayout.VIRTUAL_GROUPS,
                    StatsWindows.virtualGroups(reader.snapshot()).size(),
                    "three rows per group");
        }
    }

    /**
     * A group's running members show beside its ended ones: their count, and their totals so far in the group's row,
     * before any of them ended (no p50 or p99 rows yet); the next frame shows what they added since; as one ends, its
     * totals move from the running sums to the ended ones; and where it ended between the two (in neither for a tick)
     * the group's totals hold, never go down, and its share shows once it reached the ended ones.
     */
    @Test
    void aGroupShowsItsRunningMembersBesideItsEndedOnes() throws Exception {
        Path file = dir.resolve("running.stats");
        try (StatsFile stats = StatsFile.create(file, 4242, 0, MILLISECOND, 2, 4, 4);
                StatsFileReader reader = StatsFileReader.open(file)) {
            int[] columns = {stats.eventIndex("task-clock")};
            StatsWindows windows = new StatsWindows(4242);
            assertTrue(stats.virtualRunning("vt", 3, CounterSnapshots.of(new long[] {30_000}, 30, 30), columns));
            stats.publishVirtualGroups(1 * MILLISECOND);
            stats.sampled(1 * MILLISECOND, 1);
            List<ThreadReport> rows = windows.next(reader.snapshot()).virtualGroups();
            assertEquals(List.of("vt (members: 0 ended, 3 running)"), names(rows), "no percentile of none ended");
            assertEquals(30_000L, rows.get(0).counters().get("task-clock"));
            assertEquals(ThreadState.RUNNING, rows.get(0).state(), "while a member runs");

            stats.virtualRunning("vt", 3, CounterSnapshots.of(new long[] {45_000}, 45, 45), columns);
            stats.publishVirtualGroups(2 * MILLISECOND);
            stats.sampled(2 * MILLISECOND, 2);
            rows = windows.next(reader.snapshot()).virtualGroups();
            assertEquals(15_000L, rows.get(0).counters().get("task-clock"), "what they added since");

            // one ended, its 20,000 not yet in the ended sums: the group holds 45,000
            stats.virtualRunning("vt", 2, CounterSnapshots.of(new long[] {26_000}, 26, 26), columns);
            stats.publishVirtualGroups(3 * MILLISECOND);
            stats.sampled(3 * MILLISECOND, 3);
            rows = windows.next(reader.snapshot()).virtualGroups();
            assertEquals("vt (members: 0 ended, 2 running)", rows.get(0).name());
            assertEquals(0L, rows.get(0).counters().get("task-clock"), "never down");

            stats.virtualEnded("vt", CounterSnapshots.of(new long[] {20_000}, 20, 20), columns);
            stats.virtualRunning("vt", 2, CounterSnapshots.of(new long[] {28_000}, 28, 28), columns);
            stats.publishVirtualGroups(4 * MILLISECOND);
            stats.sampled(4 * MILLISECOND, 4);
            rows = windows.next(reader.snapshot()).virtualGroups();
            assertEquals(List.of("vt (members: 1 ended, 2 running)", "vt p50 of one", "vt p99 of one"), names(rows));
            assertEquals(3_000L, rows.get(0).counters().get("task-clock"), "48,000 in all now");

            stats.virtualEnded("vt", CounterSnapshots.of(new long[] {14_000}, 14, 14), columns);
            stats.virtualEnded("vt", CounterSnapshots.of(new long[] {14_000}, 14, 14), columns);
            stats.publishVirtualGroups(5 * MILLISECOND); // no running given: none runs
            stats.sampled(5 * MILLISECOND, 5);
            List<ThreadReport> totals = StatsWindows.virtualGroups(reader.snapshot());
            assertEquals("vt (members: 3 ended, 0 running)", totals.get(0).name());
            assertEquals(48_000L, totals.get(0).counters().get("task-clock"));
            assertEquals(ThreadState.ENDED, totals.get(0).state());
        }
    }

    private static List<String> names(List<ThreadReport> rows) {
        return rows.stream().map(ThreadReport::name).collect(Collectors.toList());
    }

    private static void put(FileChannel channel, long offset, long value) throws IOException {
        ByteBuffer bytes =
                ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value);
        channel.write(bytes, offset);
    }

    static ThreadSample thread(StatsSnapshot snapshot, int tid) {
        return snapshot.threads().stream()
                .filter(s -> s.tid() == tid)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no thread " + tid + " in the stats file"));
    }

    /** The final totals of every finished thread, those of the ring and the aggregate's. */
    static long finishedSum(StatsSnapshot snapshot) {
        return snapshot.threads().stream()
                .filter(s -> s.state() != StatsLayout.STATE_RUNNING)
                .mapToLong(s -> s.raw(0))
                .sum();
    }
}
