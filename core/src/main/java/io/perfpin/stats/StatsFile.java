package io.perfpin.stats;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.files.OutputFile;
import io.perfpin.files.OwnedDirectory;
import io.perfpin.nativeio.FileMappings;
import io.perfpin.nativeio.Syscalls;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static io.perfpin.stats.StatsLayout.*;

/**
 * The writer of a per-JVM stats file ({@link StatsLayout}). Single writer: every method is called from
 * one thread, the sampler; readers ({@link StatsFileReader}) never block it.
 *
 * <p>A finished thread's final counts move from its live slot to the finished ring. When the ring is
 * full, the oldest finished thread's counts are first added into the aggregate slot, so the file always
 * holds every thread's total: the live ones, the recent finished ones, and the sum of all older ones.
 *
 * <p>The writer only writes the mapping, and never decides on what it would read back: which slots are taken,
 * the sequences, what the ring holds and the aggregate's sums are kept here, so a file that someone scribbles
 * on cannot mislead it. Whether the file is still whole and still at its path is for the caller to ask, with
 * {@link #damage}, before it writes: a write to a part of the mapping that the file no longer has faults
 * (see {@link MappedFaults}).
 */
public final class StatsFile implements AutoCloseable {
    private final Path path;
    private final FileChannel channel;
    /** The file's identity (device and inode) when it was created: another file at its path has another. */
    private final Object fileKey;
    private final long size;
    private final MappedByteBuffer buffer;
    private final int capacity;
    /** The events named so far, as written to the header: a column is found without decoding the file. */
    private final List<String> eventNames = new ArrayList<>();
    private final boolean[] refusalWritten;
    private final boolean[] sourceWritten;
    private final int liveSlots;
    private final int finishedSlots;
    private final int slotSize;
    private final int slotsOffset;
    private final boolean[] liveTaken;
    /** Each slot's seqlock sequence: live slots, then the ring, then the aggregate. */
    private final long[] sequences;
    /** The final counts each ring slot holds, to add into the aggregate when the ring overwrites it. */
    private final FinalCounts[] ring;
    /** The aggregate's sums: per column, value, time enabled and time running. */
    private final long[] aggregate;
    private int aggregateThreads;
    private long finishedTotal;
    private long threadsNotCounted;
    private int noticesPosted;
    private final int trailerOffset;

    /** A finished thread's counts, by column. */
    private record FinalCounts(int[] columns, long[] values, long[] enabled, long[] running) {
    }

    private StatsFile(Path path, FileChannel channel, Object fileKey, MappedByteBuffer buffer, int capacity,
                      int liveSlots, int finishedSlots) {
        this.path = path;
        this.channel = channel;
        this.fileKey = fileKey;
        this.size = buffer.capacity();
        this.buffer = buffer;
        this.capacity = capacity;
        this.refusalWritten = new boolean[capacity];
        this.sourceWritten = new boolean[capacity];
        this.liveSlots = liveSlots;
        this.finishedSlots = finishedSlots;
        this.slotSize = slotSize(capacity);
        this.slotsOffset = headerSize(capacity);
        this.liveTaken = new boolean[liveSlots];
        this.sequences = new long[liveSlots + finishedSlots + 1];
        this.ring = new FinalCounts[finishedSlots];
        this.aggregate = new long[capacity * 3];
        this.trailerOffset = (int) trailerOffset(capacity, liveSlots, finishedSlots);
    }

    /**
     * Creates the file as {@link OutputFile} says (0600, new or replacing one of this user's regular files, never
     * through a link) and publishes its header last. Events are named later with {@link #eventIndex}, up to
     * {@code eventCapacity} of them. The file stays open until {@link #close}, so that {@link #damage} can ask its
     * size.
     *
     * @throws IllegalArgumentException when a value is outside what {@link StatsLayout} allows a reader to accept
     */
    public static StatsFile create(Path file, long pid, long startEpochMillis, long intervalNanos,
                                   int eventCapacity, int liveSlots, int finishedSlots) throws IOException {
        return create(file, pid, startEpochMillis, intervalNanos, eventCapacity, liveSlots, finishedSlots, "");
    }

    /** As the other {@code create}, recording the options text the agent was started with. */
    public static StatsFile create(Path file, long pid, long startEpochMillis, long intervalNanos,
                                   int eventCapacity, int liveSlots, int finishedSlots, String options)
            throws IOException {
        requireWithin("event capacity", eventCapacity, 1, MAX_EVENT_CAPACITY);
        requireWithin("live slot count", liveSlots, 1, MAX_LIVE_SLOTS);
        requireWithin("finished slot count", finishedSlots, 1, MAX_FINISHED_SLOTS);
        requireWithin("pid", pid, 1, MAX_PID);
        if (intervalNanos < MIN_INTERVAL_NANOS || intervalNanos > MAX_INTERVAL_NANOS) {
            throw new IllegalArgumentException("a stats file allows an interval from 1ms to 1h, not " + intervalNanos
                    + " ns");
        }
        long size = fileSize(eventCapacity, liveSlots, finishedSlots);
        FileChannel channel = OutputFile.create(file);
        try {
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            buffer.order(ByteOrder.LITTLE_ENDIAN);
            Object key = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            StatsFile stats = new StatsFile(file, channel, key, buffer, eventCapacity, liveSlots, finishedSlots);
            stats.writeHeader(pid, startEpochMillis, intervalNanos, options);
            return stats;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static void requireWithin(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("stats file " + what + " " + value + " is outside " + min + " to " + max);
        }
    }

    /**
     * Removes the stats files of processes that no longer run from {@code dir}, where files are named
     * {@code <pid>.stats}, as HotSpot does with its hsperfdata files: a JVM that was killed could not remove
     * its own. A dead JVM's counts are kept in its recording ({@code out=}), not here. Returns how many went.
     */
    public static int removeStale(OwnedDirectory dir) {
        int removed = 0;
        try {
            for (String name : dir.names(n -> n.endsWith(".stats"))) {
                try {
                    long pid = Long.parseLong(name.substring(0, name.length() - ".stats".length()));
                    if (ProcessHandle.of(pid).isEmpty() && dir.delete(name)) {
                        removed++;
                    }
                } catch (NumberFormatException | IOException e) {
                    // not one of ours, or gone already
                }
            }
        } catch (IOException e) {
            // unreadable: nothing removed
        }
        return removed;
    }

    /** The file's path, as given when it was created. */
    public Path path() {
        return path;
    }

    /**
     * What happened to the file, when it can no longer be written: null while it still has its full size and its
     * path still names it. Cheap enough for every tick: one {@code fstat} of the open file, one {@code lstat} of
     * the path.
     */
    public String damage() {
        try {
            long now = channel.size();
            if (now < size) {
                return "it was truncated to " + now + " bytes (" + size + " expected)";
            }
            Object key = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            return Objects.equals(key, fileKey) ? null : "another file took its place";
        } catch (NoSuchFileException e) {
            return "it was removed";
        } catch (IOException e) {
            return "it cannot be checked: " + e;
        }
    }

    private void writeHeader(long pid, long startEpochMillis, long intervalNanos, String options) {
        ByteBuffer b = buffer;
        byte[] text = options.getBytes(StandardCharsets.UTF_8);
        b.putInt(OPTIONS_LENGTH_OFFSET, text.length);
        b.putInt(OPTIONS_CRC_OFFSET, OptionsText.crc(text));
        putString(trailerOffset, OPTIONS_TEXT_SIZE, options);
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

    /**
     * Posts a notice for viewers, after the ones posted before; false when the file holds
     * {@link StatsLayout#NOTICE_CAPACITY} already.
     */
    public boolean notice(boolean refused, String text) {
        if (noticesPosted == NOTICE_CAPACITY) {
            return false;
        }
        int offset = trailerOffset + OPTIONS_TEXT_SIZE + noticesPosted * NOTICE_SIZE;
        buffer.putInt(offset + NOTICE_KIND_OFFSET, refused ? NOTICE_REFUSED : NOTICE_INFO);
        putString(offset + NOTICE_TEXT_OFFSET, NOTICE_SIZE - NOTICE_TEXT_OFFSET, text);
        noticesPosted++;
        LONGS.setRelease(buffer, NOTICES_POSTED_OFFSET, (long) noticesPosted);
        return true;
    }

    /** Says why the kernel refused the event of a column, unless a reason is there already. */
    public void eventRefused(int column, String reason) {
        if (column >= 0 && !refusalWritten[column]) {
            putString(eventReasonsOffset(capacity) + column * EVENT_REASON_SIZE, EVENT_REASON_SIZE, reason);
            refusalWritten[column] = true;
        }
    }

    /** Says where the values of a column come from when not from perf_event_open (as {@code proc}), once. */
    public void eventSource(int column, String source) {
        if (column >= 0 && !sourceWritten[column]) {
            putString(eventSourcesOffset(capacity) + column * EVENT_SOURCE_SIZE, EVENT_SOURCE_SIZE, source);
            sourceWritten[column] = true;
        }
    }

    /** Claims a free live slot for a thread; returns its index, or -1 when every live slot is taken. */
    public int claimSlot(int tid, long javaId, String name, String cpus) {
        for (int slot = 0; slot < liveSlots; slot++) {
            if (!liveTaken[slot]) {
                liveTaken[slot] = true;
                int offset = slotOffset(slot);
                beginWrite(slot);
                buffer.putInt(offset + STATE_OFFSET, STATE_RUNNING);
                writeIdentity(offset, tid, javaId, name, cpus, 1);
                for (int e = 0; e < capacity; e++) {
                    writeCounter(offset, e, 0, 0, 0);
                }
                endWrite(slot);
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
        int offset = slotOffset(slot);
        beginWrite(slot);
        buffer.putInt(offset + LAST_CPU_OFFSET, lastCpu);
        putString(offset + CPUS_OFFSET, CPUS_SIZE, cpus);
        for (int i = 0; i < columns.length; i++) {
            if (columns[i] >= 0) {
                writeCounter(offset, columns[i], counts.raw(i), counts.enabledNanos(i), counts.runningNanos(i));
            }
        }
        endWrite(slot);
    }

    /**
     * Records a thread's final counts (columns as in {@link #publish}) in the finished ring, and frees its
     * live slot when it had one ({@code slot} negative when it never got one: its total is kept all the same).
     */
    public void finish(int slot, int tid, long javaId, String name, String cpus, CounterSnapshot finalCounts,
                       int[] columns) {
        int ringSlot = (int) (finishedTotal % finishedSlots);
        if (ring[ringSlot] != null) {
            foldIntoAggregate(ring[ringSlot]);
        }
        FinalCounts counts = finalCounts(finalCounts, columns);
        ring[ringSlot] = counts;
        int finished = finishedSlotOffset(ringSlot);
        beginWrite(liveSlots + ringSlot);
        buffer.putInt(finished + STATE_OFFSET, STATE_FINISHED);
        writeIdentity(finished, tid, javaId, name, cpus, 1);
        for (int e = 0; e < capacity; e++) {
            writeCounter(finished, e, 0, 0, 0);
        }
        for (int i = 0; i < columns.length; i++) {
            if (columns[i] >= 0) {
                writeCounter(finished, columns[i], counts.values[i], counts.enabled[i], counts.running[i]);
            }
        }
        endWrite(liveSlots + ringSlot);
        finishedTotal++;
        LONGS.setRelease(buffer, FINISHED_TOTAL_OFFSET, finishedTotal);

        if (slot >= 0) {
            liveTaken[slot] = false;
            beginWrite(slot);
            buffer.putInt(slotOffset(slot) + STATE_OFFSET, STATE_FREE);
            endWrite(slot);
        }
    }

    private static FinalCounts finalCounts(CounterSnapshot snapshot, int[] columns) {
        int n = columns.length;
        FinalCounts counts = new FinalCounts(columns.clone(), new long[n], new long[n], new long[n]);
        for (int i = 0; i < n; i++) {
            counts.values[i] = snapshot.raw(i);
            counts.enabled[i] = snapshot.enabledNanos(i);
            counts.running[i] = snapshot.runningNanos(i);
        }
        return counts;
    }

    private void foldIntoAggregate(FinalCounts evicted) {
        aggregateThreads++;
        for (int i = 0; i < evicted.columns.length; i++) {
            int column = evicted.columns[i];
            if (column >= 0) {
                aggregate[3 * column] += evicted.values[i];
                aggregate[3 * column + 1] += evicted.enabled[i];
                aggregate[3 * column + 2] += evicted.running[i];
            }
        }
        int slot = liveSlots + finishedSlots;
        int offset = aggregateSlotOffset();
        beginWrite(slot);
        buffer.putInt(offset + THREADS_OFFSET, aggregateThreads);
        for (int e = 0; e < capacity; e++) {
            writeCounter(offset, e, aggregate[3 * e], aggregate[3 * e + 1], aggregate[3 * e + 2]);
        }
        endWrite(slot);
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

    /**
     * Marks the file closed: readers then know no more updates come. The counts stay readable. Ask
     * {@link #damage} first: this writes too.
     */
    @Override
    public void close() throws IOException {
        LONGS.setRelease(buffer, CLOSED_OFFSET, 1L);
        buffer.force();
        channel.close();
    }

    /** Lets go of a damaged file without another write: it stays as it is, not marked closed. */
    public void abandon() throws IOException {
        channel.close();
    }

    /**
     * After {@link #close} or {@link #abandon}: the file and its pages leave this process now, not when the GC
     * collects the mapping, which a quiet application may never do ({@link FileMappings}); without perfpin's C
     * library the GC still does. A write that comes after all goes nowhere.
     */
    public void release(Syscalls syscalls) {
        FileMappings.release(syscalls, buffer);
    }

    private void beginWrite(int slot) {
        LONGS.setOpaque(buffer, slotOffset(slot) + SEQUENCE_OFFSET, ++sequences[slot]);
        VarHandle.storeStoreFence(); // the odd sequence is visible before any field changes
    }

    private void endWrite(int slot) {
        LONGS.setRelease(buffer, slotOffset(slot) + SEQUENCE_OFFSET, ++sequences[slot]);
    }

    private void writeIdentity(int offset, int tid, long javaId, String name, String cpus, int threads) {
        buffer.putInt(offset + TID_OFFSET, tid);
        buffer.putLong(offset + JAVA_ID_OFFSET, javaId);
        buffer.putInt(offset + LAST_CPU_OFFSET, -1);
        buffer.putInt(offset + THREADS_OFFSET, threads);
        putBytes(offset + NAME_OFFSET, NAME_SIZE, StatsStrings.shortenedName(name, NAME_SIZE));
        putString(offset + CPUS_OFFSET, CPUS_SIZE, cpus);
    }

    private void writeCounter(int slotOffset, int event, long value, long enabled, long running) {
        int offset = slotOffset + COUNTERS_OFFSET + event * COUNTER_SIZE;
        buffer.putLong(offset, value);
        buffer.putLong(offset + 8, enabled);
        buffer.putLong(offset + 16, running);
    }

    private void putString(int offset, int size, String value) {
        putBytes(offset, size, StatsStrings.truncatedUtf8(value, size));
    }

    private void putBytes(int offset, int size, byte[] bytes) {
        for (int i = 0; i < size; i++) {
            buffer.put(offset + i, i < bytes.length ? bytes[i] : 0);
        }
    }

    /** Of any slot: live ones first, then the ring, then the aggregate. */
    private int slotOffset(int slot) {
        return slotsOffset + slot * slotSize;
    }

    private int finishedSlotOffset(int slot) {
        return slotOffset(liveSlots + slot);
    }

    private int aggregateSlotOffset() {
        return slotOffset(liveSlots + finishedSlots);
    }
}
