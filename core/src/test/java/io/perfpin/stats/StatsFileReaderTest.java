package io.perfpin.stats;

import static io.perfpin.stats.StatsFileTest.MILLISECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.CounterSnapshots;
import io.perfpin.report.StatsWindows;
import io.perfpin.report.ThreadReport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files damaged in the ways a user's directory allows: each is one line that names the file and the damage. */
class StatsFileReaderTest {
    private static final Duration HANG_GUARD = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    /** A file as an agent leaves it: two live threads, three finished, one of them in the aggregate. */
    static Path validFile(Path file) throws IOException {
        try (StatsFile stats = StatsFile.create(file, 4242, 1_700_000_000_000L, 50 * MILLISECOND, 4, 3, 2)) {
            int[] columns = {stats.eventIndex("task-clock"), stats.eventIndex("page-faults")};
            stats.eventRefused(stats.eventIndex("cycles"), "no hardware PMU counts this here");
            for (int t = 1; t <= 5; t++) {
                int slot = stats.claimSlot(Published.of(1000 + t, t, "worker-" + t, "0-1"));
                stats.publish(
                        slot,
                        Published.counts("0-1", CounterSnapshots.of(new long[] {10L * t, 100L * t}, t, t), columns));
                if (t <= 3) {
                    stats.finish(
                            slot,
                            Published.of(
                                    1000 + t,
                                    t,
                                    "worker-" + t,
                                    "0-1",
                                    CounterSnapshots.of(new long[] {10L * t, 100L * t}, t, t),
                                    columns),
                            false);
                }
            }
            stats.heartbeat(1_700_000_000_050L);
        }
        return file;
    }

    @Test
    void aValidFileReadsWhole() throws Exception {
        try (StatsFileReader reader = StatsFileReader.open(validFile(dir.resolve("valid.stats")))) {
            StatsSnapshot snapshot = reader.snapshot();
            assertEquals(3, snapshot.eventNames().size());
            assertEquals(5, snapshot.threads().size(), "two live, two in the ring, the aggregate");
            assertEquals(3, snapshot.finishedTotal());
            assertEquals(true, snapshot.isClosed());
        }
    }

    @Test
    void aHeaderThatClaimsMoreThanTheFileHoldsIsDamageNotAnAllocation() throws Exception {
        Path file = validFile(dir.resolve("capacity.stats"));
        putInt(file, StatsLayout.EVENT_CAPACITY_OFFSET, 0x7fffffff);
        assertDamaged(file, file + " is damaged: event capacity 2147483647 (1 to 256 allowed)");

        putInt(validFile(file), StatsLayout.LIVE_SLOTS_OFFSET, 0);
        assertDamaged(file, file + " is damaged: live slot count 0 (1 to 3 allowed)");

        putInt(validFile(file), StatsLayout.LIVE_SLOTS_OFFSET, 4);
        assertDamaged(file, file + " is damaged: live slot count 4 (1 to 3 allowed)");

        putInt(validFile(file), StatsLayout.LIVE_CAPACITY_OFFSET, 4);
        putInt(file, StatsLayout.LIVE_SLOTS_OFFSET, 4);
        assertDamaged(
                file,
                file + " is truncated to " + StatsLayout.fileSize(4, 3, 2) + " bytes (" + StatsLayout.fileSize(4, 4, 2)
                        + " expected)");

        putInt(validFile(file), StatsLayout.SLOT_SIZE_OFFSET, 8);
        assertDamaged(file, file + " is damaged: slot size 8 (" + StatsLayout.slotSize(4) + " for event capacity 4)");

        try (FileChannel channel = FileChannel.open(validFile(file), StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(1), channel.size());
        }
        assertDamaged(
                file,
                file + " is damaged: " + (StatsLayout.fileSize(4, 3, 2) + 1) + " bytes long, but its"
                        + " header allows at most " + StatsLayout.fileSize(4, 3, 2));
    }

    @Test
    void theSimulatedPmuIsReadFromTheHeaderAndLabelsEveryWindowAndAnyOtherTextThereIsDamage() throws Exception {
        try (StatsFileReader reader = StatsFileReader.open(validFile(dir.resolve("kernel.stats")))) {
            assertNull(reader.pmu(), "the kernel's PMU has no name in the file");
            assertNull(reader.snapshot().pmu());
        }
        Path file = dir.resolve("simulated.stats");
        try (StatsFile stats =
                StatsFile.create(file, 4242, 0, 50 * MILLISECOND, 1, 1, 1, "", "simulated skylake", List.of())) {
            stats.claimSlot(Published.of(1001, 1, "worker", "0"));
            stats.sampled(1, 1);
        }
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            assertEquals("simulated skylake", reader.pmu());
            StatsSnapshot snapshot = reader.snapshot();
            List<ThreadReport> rows =
                    new StatsWindows(StatsLayout.MAX_PID).next(snapshot).threads();
            assertEquals(1, rows.size());
            assertEquals("simulated skylake", rows.get(0).pmu(), "a viewer's rows say it as the agent's records do");
        }
        // A viewer prints it in its heading: a terminal's escape there is damage, never printed.
        putInt(file, StatsLayout.PMU_OFFSET, 0x5b1b2b73); // "s+" ESC "["
        assertDamaged(
                file,
                file + " is damaged: PMU name of 17 characters (none, or simulated and a model's name of lower-case"
                        + " letters, digits and dashes allowed)");
        assertThrows(
                IllegalArgumentException.class,
                () -> StatsFile.create(
                        dir.resolve("bad.stats"), 1, 0, MILLISECOND, 1, 1, 1, "", "skylake\033[2J", List.of()));
    }

    /**
     * A file within the layout's bounds whose slots and events together ask more values than any agent's file holds
     * (here 65,536 live slots of 256 events, a sparse 500 MB) is refused at its first read, before a slot is read into
     * memory: a viewer, often root's, never spends gigabytes and minutes on another user's file.
     */
    @Test
    void aFileThatAsksMoreValuesThanAnyAgentsIsRefusedBeforeItIsRead() throws Exception {
        Path file = dir.resolve("huge.stats");
        int capacity = StatsLayout.MAX_EVENT_CAPACITY;
        int live = StatsLayout.MAX_LIVE_SLOTS;
        try (StatsFile stats = StatsFile.create(file, 4242, 1_700_000_000_000L, 50 * MILLISECOND, capacity, live, 1)) {
            for (int e = 0; e < capacity; e++) {
                stats.eventIndex("event-" + e);
            }
        }
        putInt(file, StatsLayout.LIVE_SLOTS_OFFSET, live);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            // sparse: the holes read as free slots, and take no disk
            channel.write(ByteBuffer.allocate(1), StatsLayout.fileSize(capacity, live, 1) - 1);
        }
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            assertEquals(
                    file + " holds 65536 live and 0 finished thread slots of 256 events, 16777216 values: more than"
                            + " the 8388608 a viewer reads at once, which no agent's file needs",
                    message(reader::snapshot));
        }
    }

    /** A file of another layout is refused in one line that says which perfpin reads it. */
    @Test
    void aFileOfAnotherLayoutVersionSaysWhichPerfpinReadsIt() throws Exception {
        Path file = validFile(dir.resolve("version.stats"));
        int version = StatsLayout.VERSION;
        putInt(file, StatsLayout.VERSION_OFFSET, version - 1);
        assertDamaged(
                file,
                file + " has layout version " + (version - 1) + "; this perfpin reads " + version + ": an older"
                        + " perfpin's agent wrote it: view it with that perfpin, or start the JVM again with this one's"
                        + " agent");
        putInt(file, StatsLayout.VERSION_OFFSET, version + 1);
        assertDamaged(
                file,
                file + " has layout version " + (version + 1) + "; this perfpin reads " + version + ": a newer"
                        + " perfpin's agent wrote it: view it with that perfpin");
    }

    @Test
    void anIntervalOfZeroIsDamage() throws Exception {
        Path file = validFile(dir.resolve("interval.stats"));
        putLong(file, StatsLayout.INTERVAL_OFFSET, 0);
        assertDamaged(file, file + " is damaged: interval 0 ns (1 ms to 1 h allowed)");
    }

    @Test
    void fieldsTheWriterUpdatesAreCheckedOnEveryRead() throws Exception {
        Path file = validFile(dir.resolve("dynamic.stats"));
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            reader.snapshot();
            putInt(file, StatsLayout.EVENT_COUNT_OFFSET, 5);
            assertEquals(file + " is damaged: event count 5 (3 to 4 allowed)", message(reader::snapshot));
            putInt(file, StatsLayout.EVENT_COUNT_OFFSET, 2);
            assertEquals(
                    file + " is damaged: event count 2 (3 to 4 allowed)",
                    message(reader::snapshot),
                    "the count never falls");
            putInt(file, StatsLayout.EVENT_COUNT_OFFSET, 3);
            putLong(file, StatsLayout.CLOSED_OFFSET, 3);
            assertEquals(file + " is damaged: closed field 3 (0, 1 or 2 allowed)", message(reader::isClosed));
            putLong(file, StatsLayout.CLOSED_OFFSET, 1);
            putLong(file, StatsLayout.FINISHED_TOTAL_OFFSET, 1);
            assertEquals(file + " is damaged: finished thread count 1 (3 or more allowed)", message(reader::snapshot));
        }
    }

    @Test
    void aSlotInAStateItsPlaceCannotHaveIsDamageAtOnce() throws Exception {
        Path file = validFile(dir.resolve("state.stats"));
        long ring = slotOffset(3);
        putInt(file, ring + StatsLayout.STATE_OFFSET, StatsLayout.STATE_RUNNING);
        putLong(file, ring + StatsLayout.SEQUENCE_OFFSET, 1);
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            assertEquals(
                    file + " is damaged: finished slot 0 has state 1 (free or finished allowed there)",
                    message(reader::snapshot));
        }
    }

    @Test
    void aSlotThatNeverSettlesIsDamageAfterAtMostTheSettleTime() throws Exception {
        Path file = validFile(dir.resolve("odd.stats"));
        putLong(file, slotOffset(0) + StatsLayout.SEQUENCE_OFFSET, 3);
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            String message = assertTimeoutPreemptively(HANG_GUARD, () -> message(reader::snapshot));
            assertEquals(
                    file + " is damaged: live slot 0 stayed mid-update for 1000 ms (its writer died while writing"
                            + " it, or it holds no sequence)",
                    message);
        }
    }

    @Test
    void settledSlotsAreCheckedFieldByField() throws Exception {
        Path file = validFile(dir.resolve("fields.stats"));
        putInt(file, slotOffset(4) + StatsLayout.TID_OFFSET, -7);
        assertDamagedOnRead(file, file + " is damaged: finished slot 1: tid -7 (1 to 4194304 allowed)");
        putLong(validFile(file), slotOffset(3) + StatsLayout.COUNTERS_OFFSET + 8, -1);
        assertDamagedOnRead(file, file + " is damaged: finished slot 0: event 0 has a negative count or time");
        putInt(validFile(file), slotOffset(0) + StatsLayout.FLAGS_OFFSET, 16);
        assertDamagedOnRead(file, file + " is damaged: live slot 0: flags 10 (bits 0 to 3 allowed, pin 0 to 2)");
    }

    @Test
    void aFileTruncatedUnderAnOpenReaderIsReportedAsTruncated() throws Exception {
        Path file = validFile(dir.resolve("cut.stats"));
        long size = Files.size(file);
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }
            String truncated = file + " is truncated to 0 bytes (" + size + " expected)";
            assertEquals(truncated, message(reader::snapshot));
            assertEquals(truncated, message(reader::isClosed));
            assertEquals(truncated, message(reader::heartbeatEpochMillis));
        }
        // Empty, it is what the agent's sampler has just created: a reader that waits for it may try again.
        assertEquals(file + " is still being created; try again", message(() -> StatsFileReader.open(file)));
        Files.write(file, new byte[16]);
        assertEquals(file + " is not a perfpin stats file (too short)", message(() -> StatsFileReader.open(file)));
    }

    @Test
    void aFifoIsNoStatsFileAndOpeningItDoesNotWaitForAWriter() throws Exception {
        Path fifo = dir.resolve("fifo.stats");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        assertEquals(
                fifo + " is not a perfpin stats file (not a regular file)",
                assertTimeoutPreemptively(HANG_GUARD, () -> message(() -> StatsFileReader.open(fifo))));
    }

    /** Slots 0 to 2 are live, 3 and 4 the finished ring's, 5 the aggregate. */
    private static long slotOffset(int slot) {
        return slot < 3
                ? StatsLayout.liveOffset(4, 2) + (long) slot * StatsLayout.slotSize(4)
                : slot < 5 ? StatsLayout.finishedOffset(4, slot - 3) : StatsLayout.aggregateOffset(4);
    }

    private static void assertDamaged(Path file, String expected) {
        assertEquals(expected, message(() -> StatsFileReader.open(file)));
    }

    private static void assertDamagedOnRead(Path file, String expected) throws IOException {
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            assertEquals(expected, message(reader::snapshot));
        }
    }

    interface Read {
        Object read() throws IOException;
    }

    static String message(Read read) {
        return assertThrows(IOException.class, read::read).getMessage();
    }

    static void putInt(Path file, long offset, int value) throws IOException {
        put(
                file,
                offset,
                ByteBuffer.allocate(Integer.BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putInt(0, value));
    }

    static void putLong(Path file, long offset, long value) throws IOException {
        put(
                file,
                offset,
                ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value));
    }

    private static void put(Path file, long offset, ByteBuffer bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(bytes, offset);
        }
    }
}
