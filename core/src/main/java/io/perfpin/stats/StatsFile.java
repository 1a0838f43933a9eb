package io.perfpin.stats;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.nativeio.PrivateFiles;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.perfpin.stats.StatsLayout.*;

/**
 * The writer of a per-JVM stats file ({@link StatsLayout}). Single writer: every method is called from
 * one thread, the sampler; readers ({@link StatsFileReader}) never block it.
 *
 * <p>A finished thread's final counts move from its live slot to the finished ring. When the ring is
 * full, the oldest finished thread's counts are first added into the aggregate slot, so the file always
 * holds every thread's total: the live ones, the recent finished ones, and the sum of all older ones.
 */
public final class StatsFile implements AutoCloseable {
    private final MappedByteBuffer buffer;
    private final int capacity;
    /** The events named so far, as written to the header: a column is found without decoding the file. */
    private final List<String> eventNames = new ArrayList<>();
    private final boolean[] refusalWritten;
    private final int liveSlots;
    private final int finishedSlots;
    private final int slotSize;
    private final int slotsOffset;
    private long finishedTotal;
    private long threadsNotCounted;

    private StatsFile(MappedByteBuffer buffer, int capacity, int liveSlots, int finishedSlots) {
        this.buffer = buffer;
        this.capacity = capacity;
        this.refusalWritten = new boolean[capacity];
        this.liveSlots = liveSlots;
        this.finishedSlots = finishedSlots;
        this.slotSize = slotSize(capacity);
        this.slotsOffset = headerSize(capacity);
    }

    /**
     * Creates the file (0600, in a directory made private if new) and publishes its header last. Events
     * are named later with {@link #eventIndex}, up to {@code eventCapacity} of them.
     */
    public static StatsFile create(Path file, long pid, long startEpochMillis, long intervalNanos,
                                   int eventCapacity, int liveSlots, int finishedSlots) throws IOException {
        if (liveSlots < 1 || finishedSlots < 1 || eventCapacity < 1) {
            throw new IllegalArgumentException("need room for at least one event, live and finished thread");
        }
        PrivateFiles.createPrivateDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        long size = fileSize(eventCapacity, liveSlots, finishedSlots);
        MappedByteBuffer buffer;
        try (FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_PERMISSIONS))) {
            buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
        }
        buffer.order(ByteOrder.LITTLE_ENDIAN);
        StatsFile stats = new StatsFile(buffer, eventCapacity, liveSlots, finishedSlots);
        stats.writeHeader(pid, startEpochMillis, intervalNanos);
        return stats;
    }

    /**
     * Removes the stats files of processes that no longer run from {@code dir}, where files are named
     * {@code <pid>.stats}, as HotSpot does with its hsperfdata files: a JVM that was killed could not remove
     * its own. A dead JVM's counts are kept in its recording ({@code out=}), not here. Returns how many went.
     */
    public static int removeStale(Path dir) {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.stats")) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                try {
                    long pid = Long.parseLong(name.substring(0, name.length() - ".stats".length()));
                    if (ProcessHandle.of(pid).isEmpty() && Files.deleteIfExists(file)) {
                        removed++;
                    }
                } catch (NumberFormatException | IOException e) {
                    // not one of ours, or gone already
                }
            }
        } catch (IOException e) {
            // no directory yet: nothing stale
        }
        return removed;
    }

    private void writeHeader(long pid, long startEpochMillis, long intervalNanos) {
        ByteBuffer b = buffer;
        b.putInt(MAGIC_OFFSET, MAGIC);
        b.putLong(PID_OFFSET, pid);
        b.putLong(START_TIME_OFFSET, startEpochMillis);
        b.putLong(INTERVAL_OFFSET, intervalNanos);
        b.putInt(EVENT_CAPACITY_OFFSET, capacity);
        b.putInt(LIVE_SLOTS_OFFSET, liveSlots);
        b.putInt(FINISHED_SLOTS_OFFSET, finishedSlots);
        b.putInt(SLOT_SIZE_OFFSET, slotSize);
        int aggregate = aggregateSlotOffset();
        b.putInt(aggregate + STATE_OFFSET, STATE_AGGREGATE);
        b.putInt(aggregate + LAST_CPU_OFFSET, -1);
        putString(aggregate + NAME_OFFSET, NAME_SIZE, "(older finished threads)");
        INTS.setRelease(b, VERSION_OFFSET, VERSION);
    }

    /**
     * The column of an event, named on first use: its name is written before the event count that makes
     * it visible. Returns -1 when the file already names {@code eventCapacity} events.
     */
    public int eventIndex(String name) {
        int known = eventNames.indexOf(name);
        if (known >= 0) {
            return known;
        }
        int events = eventNames.size();
        if (events == capacity) {
            return -1;
        }
        putString(EVENT_NAMES_OFFSET + events * EVENT_NAME_SIZE, EVENT_NAME_SIZE, name);
        eventNames.add(name);
        INTS.setRelease(buffer, EVENT_COUNT_OFFSET, events + 1);
        return events;
    }

    /** Says why the kernel refused the event of a column, unless a reason is there already. */
    public void eventRefused(int column, String reason) {
        if (column >= 0 && !refusalWritten[column]) {
            putString(eventReasonsOffset(capacity) + column * EVENT_REASON_SIZE, EVENT_REASON_SIZE, reason);
            refusalWritten[column] = true;
        }
    }

    /** Claims a free live slot for a thread; returns its index, or -1 when every live slot is taken. */
    public int claimSlot(int tid, long javaId, String name, String cpus) {
        for (int slot = 0; slot < liveSlots; slot++) {
            int offset = liveSlotOffset(slot);
            if (buffer.getInt(offset + STATE_OFFSET) == STATE_FREE) {
                beginWrite(offset);
                buffer.putInt(offset + STATE_OFFSET, STATE_RUNNING);
                writeIdentity(offset, tid, javaId, name, cpus, 1);
                for (int e = 0; e < capacity; e++) {
                    writeCounter(offset, e, 0, 0, 0);
                }
                endWrite(offset);
                return slot;
            }
        }
        return -1;
    }

    /**
     * Publishes a live thread's cumulative counts and where it last ran: its event {@code i} goes to column
     * {@code columns[i]} (from {@link #eventIndex}; negative skips the event).
     */
    public void publish(int slot, int lastCpu, String cpus, CounterSnapshot counts, int[] columns) {
        int offset = liveSlotOffset(slot);
        beginWrite(offset);
        buffer.putInt(offset + LAST_CPU_OFFSET, lastCpu);
        putString(offset + CPUS_OFFSET, CPUS_SIZE, cpus);
        writeCounters(offset, counts, columns);
        endWrite(offset);
    }

    private void writeCounters(int offset, CounterSnapshot counts, int[] columns) {
        for (int i = 0; i < columns.length; i++) {
            if (columns[i] >= 0) {
                writeCounter(offset, columns[i], counts.raw(i), counts.enabledNanos(i), counts.runningNanos(i));
            }
        }
    }

    /**
     * Records a thread's final counts (columns as in {@link #publish}) in the finished ring, and frees its
     * live slot when it had one ({@code slot} negative when it never got one: its total is kept all the same).
     */
    public void finish(int slot, int tid, long javaId, String name, String cpus, CounterSnapshot finalCounts,
                       int[] columns) {
        int ringSlot = (int) (finishedTotal % finishedSlots);
        int finished = finishedSlotOffset(ringSlot);
        if (buffer.getInt(finished + STATE_OFFSET) == STATE_FINISHED) {
            foldIntoAggregate(finished);
        }
        beginWrite(finished);
        buffer.putInt(finished + STATE_OFFSET, STATE_FINISHED);
        writeIdentity(finished, tid, javaId, name, cpus, 1);
        for (int e = 0; e < capacity; e++) {
            writeCounter(finished, e, 0, 0, 0);
        }
        writeCounters(finished, finalCounts, columns);
        endWrite(finished);
        finishedTotal++;
        LONGS.setRelease(buffer, FINISHED_TOTAL_OFFSET, finishedTotal);

        if (slot >= 0) {
            int live = liveSlotOffset(slot);
            beginWrite(live);
            buffer.putInt(live + STATE_OFFSET, STATE_FREE);
            endWrite(live);
        }
    }

    private void foldIntoAggregate(int evicted) {
        int aggregate = aggregateSlotOffset();
        beginWrite(aggregate);
        buffer.putInt(aggregate + THREADS_OFFSET, buffer.getInt(aggregate + THREADS_OFFSET) + 1);
        for (int e = 0; e < capacity; e++) {
            int from = evicted + COUNTERS_OFFSET + e * COUNTER_SIZE;
            int to = aggregate + COUNTERS_OFFSET + e * COUNTER_SIZE;
            for (int field = 0; field < COUNTER_SIZE; field += Long.BYTES) {
                buffer.putLong(to + field, buffer.getLong(to + field) + buffer.getLong(from + field));
            }
        }
        endWrite(aggregate);
    }

    /** How many file descriptors the agent may hold: said once, before any thread is not counted. */
    public void descriptorBudget(long descriptors) {
        buffer.putLong(DESCRIPTOR_BUDGET_OFFSET, descriptors);
    }

    /** One more thread enrolled without counters, for want of file descriptors. */
    public void threadNotCounted() {
        threadsNotCounted++;
        LONGS.setRelease(buffer, THREADS_NOT_COUNTED_OFFSET, threadsNotCounted);
    }

    /** Tells readers the sampler is alive. */
    public void heartbeat(long epochMillis) {
        LONGS.setRelease(buffer, HEARTBEAT_OFFSET, epochMillis);
    }

    /** Marks the file closed: readers then know no more updates come. The counts stay readable. */
    @Override
    public void close() {
        LONGS.setRelease(buffer, CLOSED_OFFSET, 1L);
        buffer.force();
    }

    private void beginWrite(int slotOffset) {
        long sequence = buffer.getLong(slotOffset + SEQUENCE_OFFSET);
        LONGS.setOpaque(buffer, slotOffset + SEQUENCE_OFFSET, sequence + 1);
        VarHandle.storeStoreFence(); // the odd sequence is visible before any field changes
    }

    private void endWrite(int slotOffset) {
        long sequence = buffer.getLong(slotOffset + SEQUENCE_OFFSET);
        LONGS.setRelease(buffer, slotOffset + SEQUENCE_OFFSET, sequence + 1);
    }

    private void writeIdentity(int offset, int tid, long javaId, String name, String cpus, int threads) {
        buffer.putInt(offset + TID_OFFSET, tid);
        buffer.putLong(offset + JAVA_ID_OFFSET, javaId);
        buffer.putInt(offset + LAST_CPU_OFFSET, -1);
        buffer.putInt(offset + THREADS_OFFSET, threads);
        putString(offset + NAME_OFFSET, NAME_SIZE, name);
        putString(offset + CPUS_OFFSET, CPUS_SIZE, cpus);
    }

    private void writeCounter(int slotOffset, int event, long value, long enabled, long running) {
        int offset = slotOffset + COUNTERS_OFFSET + event * COUNTER_SIZE;
        buffer.putLong(offset, value);
        buffer.putLong(offset + 8, enabled);
        buffer.putLong(offset + 16, running);
    }

    private void putString(int offset, int size, String value) {
        byte[] bytes = StatsStrings.truncatedUtf8(value, size);
        for (int i = 0; i < size; i++) {
            buffer.put(offset + i, i < bytes.length ? bytes[i] : 0);
        }
    }

    private int liveSlotOffset(int slot) {
        return slotsOffset + slot * slotSize;
    }

    private int finishedSlotOffset(int slot) {
        return slotsOffset + (liveSlots + slot) * slotSize;
    }

    private int aggregateSlotOffset() {
        return slotsOffset + (liveSlots + finishedSlots) * slotSize;
    }
}
