package io.perfpin.stats;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.perfpin.stats.StatsLayout.*;

/**
 * A read-only observer of a stats file: maps it read-only and copies slots out under their seqlocks, so
 * it never blocks or slows the writer, and a crash of the reader costs the writer nothing.
 */
public final class StatsFileReader {
    /**
     * A live writer holds a slot for well under a microsecond, or a scheduler tick if preempted there; one
     * sequence held odd this long means the writer died mid-update.
     */
    private static final long STUCK_NANOS = 1_000_000_000L;
    private final MappedByteBuffer buffer;
    private final int capacity;
    private final int liveSlots;
    private final int finishedSlots;
    private final int slotSize;
    private final int slotsOffset;

    private StatsFileReader(MappedByteBuffer buffer) {
        this.buffer = buffer;
        this.capacity = buffer.getInt(EVENT_CAPACITY_OFFSET);
        this.liveSlots = buffer.getInt(LIVE_SLOTS_OFFSET);
        this.finishedSlots = buffer.getInt(FINISHED_SLOTS_OFFSET);
        this.slotSize = buffer.getInt(SLOT_SIZE_OFFSET);
        this.slotsOffset = headerSize(capacity);
    }

    /**
     * Maps a stats file read-only.
     *
     * @throws IOException when it is not a stats file, its writer has not finished the header yet, or its
     *                     layout version is one this reader does not know
     */
    public static StatsFileReader open(Path file) throws IOException {
        MappedByteBuffer buffer;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            if (channel.size() < EVENT_NAMES_OFFSET) {
                throw new IOException(file + " is not a perfpin stats file (too short)");
            }
            buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
        buffer.order(ByteOrder.LITTLE_ENDIAN);
        int version = (int) INTS.getAcquire(buffer, VERSION_OFFSET);
        if (buffer.getInt(MAGIC_OFFSET) != MAGIC) {
            throw new IOException(file + " is not a perfpin stats file");
        }
        if (version == 0) {
            throw new IOException(file + " is still being created; try again");
        }
        if (version != VERSION) {
            throw new IOException(file + " has layout version " + version + "; this perfpin reads " + VERSION);
        }
        if (buffer.capacity() < fileSize(buffer.getInt(EVENT_CAPACITY_OFFSET), buffer.getInt(LIVE_SLOTS_OFFSET),
                buffer.getInt(FINISHED_SLOTS_OFFSET))) {
            throw new IOException(file + " is truncated");
        }
        return new StatsFileReader(buffer);
    }

    /** The events named so far, in column order; the list only grows. */
    public List<String> eventNames() {
        int count = (int) INTS.getAcquire(buffer, EVENT_COUNT_OFFSET);
        List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            names.add(StatsStrings.read(buffer, EVENT_NAMES_OFFSET + i * EVENT_NAME_SIZE, EVENT_NAME_SIZE));
        }
        return Collections.unmodifiableList(names);
    }

    /** Why the kernel refused the event of a column; empty when it refused it to no thread. */
    public String eventRefusal(int column) {
        return StatsStrings.read(buffer, eventReasonsOffset(capacity) + column * EVENT_REASON_SIZE, EVENT_REASON_SIZE);
    }

    public long pid() {
        return buffer.getLong(PID_OFFSET);
    }

    public long startEpochMillis() {
        return buffer.getLong(START_TIME_OFFSET);
    }

    public long heartbeatEpochMillis() {
        return (long) LONGS.getAcquire(buffer, HEARTBEAT_OFFSET);
    }

    public long intervalNanos() {
        return buffer.getLong(INTERVAL_OFFSET);
    }

    public boolean isClosed() {
        return (long) LONGS.getAcquire(buffer, CLOSED_OFFSET) != 0;
    }

    public long finishedTotal() {
        return (long) LONGS.getAcquire(buffer, FINISHED_TOTAL_OFFSET);
    }

    /** Threads the agent enrolled without counters so far, for want of file descriptors. */
    public long threadsNotCounted() {
        return (long) LONGS.getAcquire(buffer, THREADS_NOT_COUNTED_OFFSET);
    }

    /** How many file descriptors the agent may hold; read after {@link #threadsNotCounted()}, which orders it. */
    public long descriptorBudget() {
        return buffer.getLong(DESCRIPTOR_BUDGET_OFFSET);
    }

    /** All slots: live ones first, then the finished ring, then the aggregate. */
    public int slots() {
        return liveSlots + finishedSlots + 1;
    }

    /** A sample with a column for every event the file can name. */
    public ThreadSample newSample() {
        return new ThreadSample(capacity);
    }

    /**
     * Copies slot {@code slot} into {@code into}, retrying while the writer is mid-update. Returns false
     * when the slot stayed mid-update at one sequence for {@link #STUCK_NANOS} (its writer died while
     * writing it): the copy is then the slot as it was left.
     */
    public boolean read(int slot, ThreadSample into) {
        int offset = slotsOffset + slot * slotSize;
        long stuckSequence = -1;
        long stuckSince = 0;
        while (true) {
            long before = (long) LONGS.getAcquire(buffer, offset + SEQUENCE_OFFSET);
            boolean abandoned = false;
            if ((before & 1) != 0) {
                long now = System.nanoTime();
                if (before != stuckSequence) {
                    stuckSequence = before;
                    stuckSince = now;
                }
                abandoned = now - stuckSince > STUCK_NANOS;
                if (!abandoned) {
                    Thread.onSpinWait();
                    continue;
                }
            }
            copy(offset, into);
            VarHandle.loadLoadFence(); // the fields were read before the sequence re-check
            if (abandoned) {
                return false;
            }
            if ((long) LONGS.getAcquire(buffer, offset + SEQUENCE_OFFSET) == before) {
                return true;
            }
        }
    }

    private void copy(int offset, ThreadSample into) {
        into.state = buffer.getInt(offset + STATE_OFFSET);
        into.tid = buffer.getInt(offset + TID_OFFSET);
        into.javaId = buffer.getLong(offset + JAVA_ID_OFFSET);
        into.lastCpu = buffer.getInt(offset + LAST_CPU_OFFSET);
        into.threads = buffer.getInt(offset + THREADS_OFFSET);
        for (int e = 0; e < capacity; e++) {
            int counter = offset + COUNTERS_OFFSET + e * COUNTER_SIZE;
            into.values[e] = buffer.getLong(counter);
            into.enabledNanos[e] = buffer.getLong(counter + 8);
            into.runningNanos[e] = buffer.getLong(counter + 16);
        }
        into.name = StatsStrings.read(buffer, offset + NAME_OFFSET, NAME_SIZE);
        into.cpus = StatsStrings.read(buffer, offset + CPUS_OFFSET, CPUS_SIZE);
    }
}
