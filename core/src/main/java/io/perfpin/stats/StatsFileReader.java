package io.perfpin.stats;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

import static io.perfpin.stats.StatsLayout.*;

/**
 * A read-only observer of a stats file: maps it read-only and copies slots out under their seqlocks, so
 * it never blocks or slows the writer, and a crash of the reader costs the writer nothing.
 *
 * <p>It believes nothing it has not checked against the rules of {@link StatsLayout}: a file that breaks one,
 * that is truncated, or that shrinks while it is read is reported as an {@link IOException} whose one-line
 * message names the file and what is wrong with it. No read waits longer than {@link #SETTLE_NANOS} on the
 * writer, and none allocates more than the file's size accounts for. The file stays open until {@link #close},
 * to check its size before every read.
 */
public final class StatsFileReader implements AutoCloseable {
    /**
     * How long one read of the whole file waits, in all, for slots the writer is updating. A live writer holds a
     * slot for well under a microsecond, or a scheduler tick if preempted there; a slot that stays mid-update this
     * long had its writer die while writing it, or is not a sequence at all.
     */
    public static final long SETTLE_NANOS = 1_000_000_000L;
    /** Spins on a slot mid-update before parking between looks: the writer is usually done by then. */
    private static final int SPINS = 100;
    private static final long PAUSE_NANOS = 50_000L;

    private final Path file;
    private final FileChannel channel;
    private final ByteBuffer buffer;
    private final Header header;
    private final long size;
    private final long settleNanos;
    private final int slotsOffset;
    /** Where a slot is copied under its seqlock, to be decoded once the copy is known to be consistent. */
    private final byte[] slotCopy;
    /** What earlier reads saw of the two counts that never fall. */
    private int eventsSeen;
    private long finishedSeen;
    private int noticesSeen;

    /** The fields the writer sets once, before the version: checked when the file is opened. */
    private record Header(int magic, int version, long pid, long startEpochMillis, long intervalNanos,
                          int capacity, int liveSlots, int finishedSlots, int slotSize) {
    }

    /** A read of the mapping that may find the file damaged. */
    private interface MappedRead<T> {
        T read() throws IOException;
    }

    private StatsFileReader(Path file, FileChannel channel, ByteBuffer buffer, Header header, long settleNanos) {
        this.file = file;
        this.channel = channel;
        this.buffer = buffer;
        this.header = header;
        this.size = buffer.capacity();
        this.settleNanos = settleNanos;
        this.slotsOffset = headerSize(header.capacity);
        this.slotCopy = new byte[header.slotSize];
    }

    /**
     * Opens a stats file and checks its header.
     *
     * @throws IOException when it cannot be read, is not a stats file, its writer has not finished the header yet,
     *                     its layout version is one this reader does not know, or it is truncated or damaged
     */
    public static StatsFileReader open(Path file) throws IOException {
        return open(file, SETTLE_NANOS);
    }

    /** As {@link #open(Path)}, waiting at most {@code settleNanos} per read for slots mid-update. */
    static StatsFileReader open(Path file, long settleNanos) throws IOException {
        if (!Files.readAttributes(file, BasicFileAttributes.class).isRegularFile()) {
            // Opening a FIFO would wait for a writer, and a device is no stats file either.
            throw new IOException(file + " is not a perfpin stats file (not a regular file)");
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        try {
            if (channel.size() == 0) {
                throw beingCreated(file); // created, not yet sized: the agent makes it on its sampler thread
            }
            if (channel.size() < EVENT_NAMES_OFFSET) {
                throw new IOException(file + " is not a perfpin stats file (too short)");
            }
            ByteBuffer fixed = channel.map(FileChannel.MapMode.READ_ONLY, 0, EVENT_NAMES_OFFSET)
                    .order(ByteOrder.LITTLE_ENDIAN);
            Header header = guarded(file, channel, EVENT_NAMES_OFFSET, () -> readHeader(fixed));
            long expected = describedSize(file, header);
            long actual = channel.size();
            if (actual < expected) {
                throw truncated(file, actual, expected);
            }
            if (actual > expected) {
                throw damaged(file, actual + " bytes long, but its header describes " + expected);
            }
            ByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0, expected).order(ByteOrder.LITTLE_ENDIAN);
            return new StatsFileReader(file, channel, buffer, header, settleNanos);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static IOException beingCreated(Path file) {
        return new IOException(file + " is still being created; try again");
    }

    private static Header readHeader(ByteBuffer fixed) {
        int version = (int) INTS.getAcquire(fixed, VERSION_OFFSET); // written last: the fields below are complete
        return new Header(fixed.getInt(MAGIC_OFFSET), version, fixed.getLong(PID_OFFSET),
                fixed.getLong(START_TIME_OFFSET), fixed.getLong(INTERVAL_OFFSET), fixed.getInt(EVENT_CAPACITY_OFFSET),
                fixed.getInt(LIVE_SLOTS_OFFSET), fixed.getInt(FINISHED_SLOTS_OFFSET), fixed.getInt(SLOT_SIZE_OFFSET));
    }

    /** The file size the header describes, once every field in it is within bounds. */
    private static long describedSize(Path file, Header h) throws IOException {
        if (h.magic == 0 && h.version == 0) {
            throw beingCreated(file); // sized, its header not yet written
        }
        if (h.magic != MAGIC) {
            throw new IOException(file + " is not a perfpin stats file");
        }
        if (h.version == 0) {
            throw beingCreated(file);
        }
        if (h.version != VERSION) {
            throw new IOException(file + " has layout version " + h.version + "; this perfpin reads " + VERSION);
        }
        within(file, "event capacity", h.capacity, 1, MAX_EVENT_CAPACITY);
        within(file, "live slot count", h.liveSlots, 1, MAX_LIVE_SLOTS);
        within(file, "finished slot count", h.finishedSlots, 1, MAX_FINISHED_SLOTS);
        if (h.slotSize != slotSize(h.capacity)) {
            throw damaged(file, "slot size " + h.slotSize + " (" + slotSize(h.capacity) + " for event capacity "
                    + h.capacity + ")");
        }
        within(file, "pid", h.pid, 1, MAX_PID);
        within(file, "start time", h.startEpochMillis, 0, Long.MAX_VALUE);
        if (h.intervalNanos < MIN_INTERVAL_NANOS || h.intervalNanos > MAX_INTERVAL_NANOS) {
            throw damaged(file, "interval " + h.intervalNanos + " ns (1 ms to 1 h allowed)");
        }
        return fileSize(h.capacity, h.liveSlots, h.finishedSlots);
    }

    private static void within(Path file, String what, long value, long min, long max) throws IOException {
        if (value < min || value > max) {
            throw damaged(file, what + " " + value + " (" + min + " to " + max + " allowed)");
        }
    }

    public long pid() {
        return header.pid;
    }

    public long startEpochMillis() {
        return header.startEpochMillis;
    }

    public long intervalNanos() {
        return header.intervalNanos;
    }

    public boolean isClosed() throws IOException {
        return guarded(this::closed);
    }

    public long heartbeatEpochMillis() throws IOException {
        return guarded(this::heartbeat);
    }

    /**
     * Reads the whole file: the events named so far, then every slot in use, each copied under its seqlock and
     * checked.
     */
    public StatsSnapshot snapshot() throws IOException {
        return guarded(this::readAll);
    }

    /** Lets go of the file; the reads already made stay valid. */
    @Override
    public void close() throws IOException {
        channel.close();
    }

    private StatsSnapshot readAll() throws IOException {
        long deadline = System.nanoTime() + settleNanos;
        // Names first: a slot only fills columns already named, so every column read below has its name.
        int events = (int) INTS.getAcquire(buffer, EVENT_COUNT_OFFSET);
        if (events < eventsSeen || events > header.capacity) {
            throw damaged(file, "event count " + events + " (" + eventsSeen + " to " + header.capacity + " allowed)");
        }
        List<String> names = new ArrayList<>(events);
        List<String> refusals = new ArrayList<>(events);
        List<String> sources = new ArrayList<>(events);
        Set<String> distinct = new HashSet<>();
        for (int e = 0; e < events; e++) {
            String name = StatsStrings.read(buffer, EVENT_NAMES_OFFSET + e * EVENT_NAME_SIZE, EVENT_NAME_SIZE);
            if (name.isEmpty() || !distinct.add(name)) {
                throw damaged(file, "event " + e + (name.isEmpty() ? " has no name" : " has the name of another"));
            }
            names.add(name);
            refusals.add(StatsStrings.read(buffer, eventReasonsOffset(header.capacity) + e * EVENT_REASON_SIZE,
                    EVENT_REASON_SIZE));
            sources.add(StatsStrings.read(buffer, eventSourcesOffset(header.capacity) + e * EVENT_SOURCE_SIZE,
                    EVENT_SOURCE_SIZE));
        }
        long finished = (long) LONGS.getAcquire(buffer, FINISHED_TOTAL_OFFSET);
        if (finished < finishedSeen) {
            throw damaged(file, "finished thread count " + finished + " (" + finishedSeen + " or more allowed)");
        }
        List<ThreadSample> threads = new ArrayList<>();
        int slots = header.liveSlots + header.finishedSlots + 1;
        for (int slot = 0; slot < slots; slot++) {
            ThreadSample sample = readSlot(slot, events, deadline);
            if (sample != null) {
                threads.add(sample);
            }
        }
        boolean closed = closed();
        long heartbeat = heartbeat();
        long notCounted = (long) LONGS.getAcquire(buffer, THREADS_NOT_COUNTED_OFFSET);
        long budget = buffer.getLong(DESCRIPTOR_BUDGET_OFFSET); // ordered by the acquire above
        if (notCounted < 0 || budget < 0) {
            throw damaged(file, "threads not counted " + notCounted + ", descriptor budget " + budget
                    + " (neither may be negative)");
        }
        List<AgentNotice> notices = notices();
        eventsSeen = events;
        finishedSeen = finished;
        noticesSeen = notices.size();
        return new StatsSnapshot(names, refusals, sources, finished, closed, heartbeat, notCounted, budget, threads,
                notices);
    }

    /** The notices posted so far, each written before the count that makes it visible. */
    private List<AgentNotice> notices() throws IOException {
        long posted = (long) LONGS.getAcquire(buffer, NOTICES_POSTED_OFFSET);
        if (posted < noticesSeen || posted > NOTICE_CAPACITY) {
            throw damaged(file, "notices posted " + posted + " (" + noticesSeen + " to " + NOTICE_CAPACITY
                    + " allowed)");
        }
        int first = (int) trailerOffset(header.capacity, header.liveSlots, header.finishedSlots) + OPTIONS_TEXT_SIZE;
        List<AgentNotice> notices = new ArrayList<>((int) posted);
        for (int n = 0; n < posted; n++) {
            int offset = first + n * NOTICE_SIZE;
            int kind = buffer.getInt(offset + NOTICE_KIND_OFFSET);
            if (kind != NOTICE_INFO && kind != NOTICE_REFUSED) {
                throw damaged(file, "notice " + n + " of kind " + kind + " (" + NOTICE_INFO + " or " + NOTICE_REFUSED
                        + " allowed)");
            }
            notices.add(new AgentNotice(kind == NOTICE_REFUSED, StatsStrings.read(buffer, offset + NOTICE_TEXT_OFFSET,
                    NOTICE_SIZE - NOTICE_TEXT_OFFSET)));
        }
        return notices;
    }

    /** The options text the agent was started with: written with the header, it never changes. */
    public OptionsText options() throws IOException {
        return guarded(() -> new OptionsText(StatsStrings.read(buffer,
                (int) trailerOffset(header.capacity, header.liveSlots, header.finishedSlots), OPTIONS_TEXT_SIZE),
                buffer.getInt(OPTIONS_LENGTH_OFFSET), buffer.getInt(OPTIONS_CRC_OFFSET)));
    }

    private boolean closed() throws IOException {
        long closed = (long) LONGS.getAcquire(buffer, CLOSED_OFFSET);
        if (closed != 0 && closed != 1) {
            throw damaged(file, "closed flag " + closed + " (0 or 1 allowed)");
        }
        return closed == 1;
    }

    private long heartbeat() throws IOException {
        long heartbeat = (long) LONGS.getAcquire(buffer, HEARTBEAT_OFFSET);
        if (heartbeat < 0) {
            throw damaged(file, "heartbeat " + heartbeat);
        }
        return heartbeat;
    }

    /**
     * Slot {@code slot} with {@code events} columns, copied under its seqlock and checked; null when it is free.
     * Its state is checked on every look: the writer only ever writes states that fit the slot's place, even
     * mid-update, so another one is damage, however odd the sequence. The copy under the seqlock is one bulk copy
     * of the slot's bytes, decoded once it is known to be consistent: the shorter the window, the sooner a reader
     * gets through between two updates.
     */
    private ThreadSample readSlot(int slot, int events, long deadline) throws IOException {
        int offset = slotsOffset + slot * header.slotSize;
        int length = COUNTERS_OFFSET + events * COUNTER_SIZE;
        boolean live = slot < header.liveSlots;
        boolean aggregate = slot == header.liveSlots + header.finishedSlots;
        int inUse = live ? STATE_RUNNING : aggregate ? STATE_AGGREGATE : STATE_FINISHED;
        for (int odd = 0; ; ) {
            long before = (long) LONGS.getAcquire(buffer, offset + SEQUENCE_OFFSET);
            int state = buffer.getInt(offset + STATE_OFFSET);
            if (state != inUse && (state != STATE_FREE || aggregate)) {
                throw damaged(file, "slot " + slot + " has state " + state + " (" + (live ? "free or running"
                        : aggregate ? "aggregate" : "free or finished") + " allowed there)");
            }
            if ((before & 1) == 0) {
                if (state != STATE_FREE) {
                    buffer.get(offset, slotCopy, 0, length);
                }
                VarHandle.loadLoadFence(); // the slot was read before the sequence re-check
                if ((long) LONGS.getAcquire(buffer, offset + SEQUENCE_OFFSET) == before) {
                    return state == STATE_FREE ? null : checked(slot, decode(state, events));
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw damaged(file, "slot " + slot + " stayed mid-update for " + settleNanos / 1_000_000 + " ms"
                        + " (its writer died while writing it, or it holds no sequence)");
            }
            if ((before & 1) == 0) {
                continue; // updated meanwhile: the writer is alive, look again at once
            }
            if (odd++ < SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(PAUSE_NANOS);
            }
        }
    }

    /** The slot in {@link #slotCopy}, with {@code events} columns. */
    private ThreadSample decode(int state, int events) {
        ByteBuffer slot = ByteBuffer.wrap(slotCopy).order(ByteOrder.LITTLE_ENDIAN);
        long[] values = new long[events];
        long[] enabled = new long[events];
        long[] running = new long[events];
        for (int e = 0; e < events; e++) {
            int counter = COUNTERS_OFFSET + e * COUNTER_SIZE;
            values[e] = slot.getLong(counter);
            enabled[e] = slot.getLong(counter + 8);
            running[e] = slot.getLong(counter + 16);
        }
        return new ThreadSample(state, slot.getInt(TID_OFFSET), slot.getLong(JAVA_ID_OFFSET),
                slot.getInt(LAST_CPU_OFFSET), slot.getInt(THREADS_OFFSET), StatsStrings.read(slot, NAME_OFFSET, NAME_SIZE),
                StatsStrings.read(slot, CPUS_OFFSET, CPUS_SIZE), values, enabled, running);
    }

    private ThreadSample checked(int slot, ThreadSample s) throws IOException {
        if (s.state() == STATE_AGGREGATE) {
            within(file, "slot " + slot + ": thread count", s.threads(), 0, Integer.MAX_VALUE);
        } else {
            within(file, "slot " + slot + ": thread count", s.threads(), 1, 1);
            within(file, "slot " + slot + ": tid", s.tid(), 1, MAX_PID);
            within(file, "slot " + slot + ": Java thread id", s.javaId(), 1, Long.MAX_VALUE);
        }
        within(file, "slot " + slot + ": last cpu", s.lastCpu(), -1, Integer.MAX_VALUE);
        for (int e = 0; e < s.events(); e++) {
            if (s.raw(e) < 0 || s.enabledNanos(e) < 0 || s.runningNanos(e) < 0) {
                throw damaged(file, "slot " + slot + ": event " + e + " has a negative count or time");
            }
        }
        return s;
    }

    private <T> T guarded(MappedRead<T> read) throws IOException {
        return guarded(file, channel, size, read);
    }

    /**
     * Runs a read of the mapping once the file is known to have {@code size} bytes, and turns a fault on the
     * mapping (the file truncated meanwhile) into an {@link IOException}.
     */
    private static <T> T guarded(Path file, FileChannel channel, long size, MappedRead<T> read) throws IOException {
        requireSize(file, channel, size);
        try {
            T value = read.read();
            MappedFaults.surface();
            return value;
        } catch (InternalError fault) {
            requireSize(file, channel, size);
            throw new IOException(file + " faulted while it was read (" + fault.getMessage() + ")");
        }
    }

    private static void requireSize(Path file, FileChannel channel, long size) throws IOException {
        long actual = channel.size();
        if (actual < size) {
            throw truncated(file, actual, size);
        }
    }

    private static IOException truncated(Path file, long actual, long expected) {
        return new IOException(file + " is truncated to " + actual + " bytes (" + expected + " expected)");
    }

    private static IOException damaged(Path file, String what) {
        return new IOException(file + " is damaged: " + what);
    }
}
