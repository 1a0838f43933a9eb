package io.perfpin.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded damage to a valid stats file: header fields set to edge and random values, random bytes in slots and
 * event names, byte flips anywhere, truncations before and after the reader opened it. Each case either reads
 * with every value within the bounds {@link StatsLayout} documents, or fails with an {@link IOException} of one
 * line that names the file; never another exception, never a hang.
 */
class StatsFileFuzzTest {
    private static final int CASES = 600;
    /** A hang guard per case, far above what a case takes. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(20);
    /** Slots left mid-update wait this long here instead of a second, so that hundreds of cases stay quick. */
    private static final long SETTLE_NANOS = 20_000_000L;

    private static final int[][] HEADER_FIELDS = {
        {StatsLayout.MAGIC_OFFSET, 4},
        {StatsLayout.VERSION_OFFSET, 4},
        {StatsLayout.PID_OFFSET, 8},
        {StatsLayout.START_TIME_OFFSET, 8},
        {StatsLayout.HEARTBEAT_OFFSET, 8},
        {StatsLayout.INTERVAL_OFFSET, 8},
        {StatsLayout.EVENT_COUNT_OFFSET, 4},
        {StatsLayout.LIVE_SLOTS_OFFSET, 4},
        {StatsLayout.FINISHED_SLOTS_OFFSET, 4},
        {StatsLayout.SLOT_SIZE_OFFSET, 4},
        {StatsLayout.FINISHED_TOTAL_OFFSET, 8},
        {StatsLayout.CLOSED_OFFSET, 8},
        {StatsLayout.EVENT_CAPACITY_OFFSET, 4},
        {StatsLayout.LIVE_CAPACITY_OFFSET, 4},
        {StatsLayout.SAMPLES_OFFSET, 8}
    };
    private static final long[] EDGES = {
        0,
        1,
        -1,
        2,
        3,
        4,
        5,
        7,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        StatsLayout.MAX_EVENT_CAPACITY + 1,
        StatsLayout.MAX_PID + 1,
        999_999
    };
    /** The valid file's shape: capacity 4, 3 live slots, 2 finished ones, the aggregate: one run of slots. */
    private static final int CAPACITY = 4;

    private static final int SLOTS = 3 + 2 + 1;

    @TempDir
    Path dir;

    /** One damaged file: its bytes, and a length to cut it to once the reader has opened it, or -1. */
    private record Damage(byte[] bytes, long cutAfterOpen) {}

    @Test
    void everyDamagedFileReadsWithinBoundsOrFailsInOneLine() throws Exception {
        byte[] valid = Files.readAllBytes(StatsFileReaderTest.validFile(dir.resolve("valid.stats")));
        Path file = dir.resolve("damaged.stats");
        Map<String, Integer> outcomes = new TreeMap<>();
        for (int seed = 0; seed < CASES; seed++) {
            Damage damage = damage(valid, new Random(seed));
            Files.write(file, damage.bytes);
            String outcome;
            try {
                outcome = assertTimeoutPreemptively(HANG_GUARD, () -> readWhole(file, damage.cutAfterOpen));
            } catch (Throwable t) {
                throw new AssertionError("seed " + seed + ": " + t, t);
            }
            outcomes.merge(outcome, 1, Integer::sum);
        }
        assertTrue(
                outcomes.getOrDefault("read", 0) > 0
                        && outcomes.getOrDefault("is damaged", 0) > 0
                        && outcomes.getOrDefault("is truncated", 0) > 0,
                "the cases reach every outcome: " + outcomes);
    }

    /** "read", or the kind of damage reported: "is damaged", "is truncated", "is not a perfpin stats file", ... */
    private static String readWhole(Path file, long cutAfterOpen) {
        try (StatsFileReader reader = StatsFileReader.open(file, SETTLE_NANOS)) {
            if (cutAfterOpen >= 0) {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    channel.truncate(cutAfterOpen);
                }
            }
            StatsSnapshot snapshot = reader.snapshot();
            assertWithinBounds(reader, snapshot);
            assertEquals(snapshot.isClosed(), reader.isClosed());
            assertTrue(reader.heartbeatEpochMillis() >= 0);
            assertTrue(cutAfterOpen < 0, "a file cut under the reader is never read");
            return "read";
        } catch (IOException e) {
            String message = e.getMessage();
            assertTrue(message.startsWith(file + " "), message);
            assertFalse(message.contains("\n"), message);
            String what = message.substring(file.toString().length() + 1);
            return what.startsWith("is damaged")
                    ? "is damaged"
                    : what.startsWith("is truncated")
                            ? "is truncated"
                            : what.replaceAll("[^a-z ].*", "").strip();
        }
    }

    private static void assertWithinBounds(StatsFileReader reader, StatsSnapshot snapshot) {
        assertTrue(reader.pid() >= 1 && reader.pid() <= StatsLayout.MAX_PID, "pid " + reader.pid());
        assertTrue(reader.startEpochMillis() >= 0);
        assertTrue(reader.intervalNanos() >= StatsLayout.MIN_INTERVAL_NANOS
                && reader.intervalNanos() <= StatsLayout.MAX_INTERVAL_NANOS);
        int events = snapshot.eventNames().size();
        assertTrue(events <= CAPACITY, "events " + events);
        assertEquals(events, new HashSet<>(snapshot.eventNames()).size(), "distinct names");
        assertTrue(snapshot.eventNames().stream().noneMatch(String::isEmpty));
        for (int e = 0; e < events; e++) {
            assertTrue(snapshot.eventRefusal(e).length() < StatsLayout.EVENT_REASON_SIZE);
        }
        assertTrue(snapshot.finishedTotal() >= 0);
        assertTrue(
                snapshot.threads().size() <= SLOTS,
                "slots " + snapshot.threads().size());
        assertEquals(
                1,
                snapshot.threads().stream()
                        .filter(s -> s.state() == StatsLayout.STATE_AGGREGATE)
                        .count());
        for (ThreadSample s : snapshot.threads()) {
            assertTrue(
                    s.state() == StatsLayout.STATE_RUNNING
                            || s.state() == StatsLayout.STATE_FINISHED
                            || s.state() == StatsLayout.STATE_AGGREGATE,
                    "state " + s.state());
            assertEquals(events, s.events());
            boolean thread = s.state() != StatsLayout.STATE_AGGREGATE;
            assertTrue(thread ? s.threads() == 1 : s.threads() >= 0, "threads " + s.threads());
            assertTrue(!thread || s.tid() >= 1 && s.tid() <= StatsLayout.MAX_PID && s.javaId() >= 1, "tid " + s.tid());
            assertTrue(s.lastCpu() >= -1);
            assertTrue(s.name().length() < StatsLayout.NAME_SIZE && s.cpus().length() < StatsLayout.CPUS_SIZE);
            for (int e = 0; e < events; e++) {
                assertTrue(s.raw(e) >= 0 && s.enabledNanos(e) >= 0 && s.runningNanos(e) >= 0);
            }
        }
    }

    private static Damage damage(byte[] valid, Random random) {
        byte[] bytes = valid.clone();
        return switch (random.nextInt(6)) {
            case 0 -> { // header fields
                for (int n = 1 + random.nextInt(3); n > 0; n--) {
                    int[] field = HEADER_FIELDS[random.nextInt(HEADER_FIELDS.length)];
                    long value = random.nextBoolean() ? EDGES[random.nextInt(EDGES.length)] : random.nextLong();
                    put(bytes, field[0], field[1], value);
                }
                yield new Damage(bytes, -1);
            }
            case 1 -> { // slot bytes
                for (int n = 1 + random.nextInt(4); n > 0; n--) {
                    int slot = StatsLayout.aggregateOffset(CAPACITY)
                            + random.nextInt(SLOTS) * StatsLayout.slotSize(CAPACITY);
                    int from = slot + random.nextInt(StatsLayout.slotSize(CAPACITY));
                    scribble(bytes, from, 1 + random.nextInt(32), random);
                }
                yield new Damage(bytes, -1);
            }
            case 2 -> { // event names and reasons
                scribble(
                        bytes,
                        StatsLayout.EVENT_NAMES_OFFSET
                                + random.nextInt(StatsLayout.headerSize(CAPACITY) - StatsLayout.EVENT_NAMES_OFFSET),
                        1 + random.nextInt(64),
                        random);
                yield new Damage(bytes, -1);
            }
            case 3 -> { // bytes flipped anywhere
                for (int n = 1 + random.nextInt(8); n > 0; n--) {
                    bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                }
                yield new Damage(bytes, -1);
            }
            case 4 -> { // cut, or grown
                if (random.nextInt(4) == 0) {
                    byte[] grown = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(64));
                    scribble(grown, bytes.length, grown.length - bytes.length, random);
                    yield new Damage(grown, -1);
                }
                yield new Damage(Arrays.copyOf(bytes, random.nextInt(bytes.length)), -1);
            }
            default -> new Damage(bytes, random.nextInt(bytes.length)); // cut once the reader has opened it
        };
    }

    private static void scribble(byte[] bytes, int from, int length, Random random) {
        for (int i = from; i < Math.min(bytes.length, from + length); i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
    }

    private static void put(byte[] bytes, int offset, int width, long value) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (width == 4) {
            buffer.putInt(offset, (int) value);
        } else {
            buffer.putLong(offset, value);
        }
    }
}
