package io.perfpin.stats;

import static io.perfpin.stats.StatsLayout.*;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.ValueHistogram;
import io.perfpin.files.OutputFile;
import io.perfpin.files.OwnedDirectory;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.nativeio.FileMappings;
import io.perfpin.nativeio.Syscalls;
import java.io.File;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The writer of a per-JVM stats file ({@link StatsLayout}). Single writer: every method is called from
 * one thread, the sampler; readers ({@link StatsFileReader}) never block it.
 *
 * <p>A finished thread's final counts move from its live slot to the finished ring. When the ring is
 * full, the oldest finished thread's counts are first added into the aggregate slot, so the file always
 * holds every thread's total: the live ones, the recent finished ones, and the sum of all older ones (of more
 * threads finished in one tick than the ring holds, the ring would overwrite the first before the tick ends: they go to
 * the aggregate at once, {@link #finishIntoAggregate}). When no live slot is free, the file grows: its live slots
 * double, up to the capacity it was created with.
 *
 * <p>The writer only writes the mapping, and never decides on what it would read back: which slots are taken,
 * the sequences, what the ring holds, the aggregate's sums and the live slot count are kept here, so a file that
 * someone scribbles on cannot mislead it. Whether the file is still whole and still at its path is for the caller
 * to ask, with {@link #damage}, before it writes: a write to a part of the mapping that the file no longer has
 * faults (see {@link MappedFaults}).
 */
public final class StatsFile implements AutoCloseable {
    private final Path path;
    private final FileChannel channel;
    /** The file's identity (device and inode) when it was created: another file at its path has another. */
    private final Object fileKey;
    /** Header, trailer, aggregate and ring: mapped once. */
    private final MappedByteBuffer fixed;
    /** The live slots, mapped anew each time they grow; the mappings they outgrew, released at the end. */
    private MappedByteBuffer live;

    private final List<MappedByteBuffer> outgrown = new ArrayList<>();
    private final int capacity;
    /** The events named so far, as written to the header: a column is found without decoding the file. */
    private final List<String> eventNames = new ArrayList<>();

    private final boolean[] refusalWritten;
    private final boolean[] sourceWritten;
    private final int liveCapacity;
    private final int finishedSlots;
    private final int slotSize;
    private int liveSlots;
    /** The file's size now: it grows with the live slots. */
    private long size;
    /** Free live slots, the lowest last: a thread takes the lowest free one. */
    private final Deque<Integer> freeLive = new ArrayDeque<>();
    /** Each slot's seqlock sequence: live slots, then the ring, then the aggregate. */
    private long[] liveSequences;
    /**
     * The columns the last thread in each live slot wrote, as it last published them (null for a slot never taken,
     * whose counters are the new file's zeros): the next thread in the slot zeroes those, not every column the file
     * has room for. A thread publishes the same columns each time: those of its event list, which the publisher works
     * out once.
     */
    private int[][] liveColumns;

    private final long[] ringSequences;
    /** The aggregate slot's sequence, alone in its array: the slot is written as every other is. */
    private final long[] aggregateSequence = new long[1];
    /** The final counts each ring slot holds, to add into the aggregate when the ring overwrites it. */
    private final FinalCounts[] ring;
    /** The aggregate's sums: per column, value, time enabled and time running. */
    private final long[] aggregate;
    /** The columns whose sums changed since the aggregate slot was last written. */
    private final boolean[] aggregateChanged;
    /** Whether the aggregate slot lags its sums: threads added since it was last written. */
    private boolean aggregateUnwritten;
    /** The live slots of threads added to the aggregate since it was last written: freed once it is. */
    private final List<Integer> leavingLive = new ArrayList<>();

    private int aggregateThreads;
    private long finishedTotal;
    private long threadsNotCounted;
    private long samples;
    private int noticesPosted;
    /** The counted-columns bits of the slot being written. */
    private final byte[] countedBits = new byte[COUNTERS_OFFSET - COUNTED_OFFSET];

    /** A finished thread's counts, by column. */
    private record FinalCounts(int[] columns, long[] values, long[] enabled, long[] running) {}

    /** The groups of virtual threads, by name, in the order a first member ran or ended: the group's index. */
    private final Map<String, VirtualGroup> virtualGroups = new LinkedHashMap<>();
    /** The virtual groups' slots' sequences: per group its totals, p50, p99 and running members. */
    private final long[] virtualSequences = new long[VIRTUAL_GROUPS * VIRTUAL_GROUP_SLOTS];
    /** The state of each of a group's slots, in their order. */
    private static final int[] VIRTUAL_STATES = {
        STATE_VIRTUAL_GROUP, STATE_VIRTUAL_P50, STATE_VIRTUAL_P99, STATE_VIRTUAL_RUNNING
    };

    /**
     * A group of virtual threads as {@link StatsLayout} shows it: its ended members' sums by column (value, time
     * enabled, time running), the columns any of them counted, and per column a histogram of a member's total for the
     * percentiles, so that it takes the same memory for 100 members as for 100,000; and its running members' sums as
     * the last tick took them, and as its slot shows them.
     */
    private static final class VirtualGroup {
        final int index;
        final String name;
        final long[] sums;
        final boolean[] counted;
        final ValueHistogram[] members;
        int threads;
        boolean changed;
        /** The running members' count, sums and columns as last given ({@link #virtualRunning}), and as written. */
        final long[] running;

        final boolean[] runningCounted;
        int runningThreads;
        final long[] runningShown;
        final boolean[] runningCountedShown;
        int runningThreadsShown = -1;
        /** The ended members' sums when the running slot was last worked out. */
        final long[] endedShown;

        VirtualGroup(int index, String name, int capacity) {
            this.index = index;
            this.name = name;
            this.sums = new long[3 * capacity];
            this.counted = new boolean[capacity];
            this.members = new ValueHistogram[capacity]; // made for the columns its members count: 15 KiB each
            this.running = new long[3 * capacity];
            this.runningCounted = new boolean[capacity];
            this.runningShown = new long[3 * capacity];
            this.runningCountedShown = new boolean[capacity];
            this.endedShown = new long[3 * capacity];
        }
    }

    private StatsFile(
            Path path,
            FileChannel channel,
            Object fileKey,
            MappedByteBuffer fixed,
            MappedByteBuffer live,
            int capacity,
            int liveSlots,
            int liveCapacity,
            int finishedSlots) {
        this.path = path;
        this.channel = channel;
        this.fileKey = fileKey;
        this.fixed = fixed;
        this.live = live;
        this.capacity = capacity;
        this.refusalWritten = new boolean[capacity];
        this.sourceWritten = new boolean[capacity];
        this.liveSlots = liveSlots;
        this.liveCapacity = liveCapacity;
        this.finishedSlots = finishedSlots;
        this.slotSize = slotSize(capacity);
        this.size = fileSize(capacity, liveSlots, finishedSlots);
        this.liveSequences = new long[liveSlots];
        this.liveColumns = new int[liveSlots][];
        this.ringSequences = new long[finishedSlots];
        this.ring = new FinalCounts[finishedSlots];
        this.aggregate = new long[capacity * 3];
        this.aggregateChanged = new boolean[capacity];
        for (int slot = 0; slot < liveSlots; slot++) {
            freeLive.addLast(slot);
        }
    }

    /**
     * Creates the file as {@link OutputFile} says (0600, new or replacing one of this user's regular files, never
     * through a link), locked for as long as it is open ({@link OutputFile#createUnlessLocked}), and publishes its
     * header last. A file there that another process holds locked is its live stats file, left as it is: refused.
     * Events are named as they come with {@link #eventIndex}, up to {@code eventCapacity} of them. The file stays open
     * until {@link #close}, so that {@link #damage} can ask its size.
     *
     * @param liveCapacity the most live slots the file grows to; it starts with
     *                     {@link StatsLayout#initialLiveSlots} of them
     * @throws IllegalArgumentException when a value is outside what {@link StatsLayout} allows a reader to accept
     */
    public static StatsFile create(
            Path file,
            long pid,
            long startEpochMillis,
            long intervalNanos,
            int eventCapacity,
            int liveCapacity,
            int finishedSlots)
            throws IOException {
        return create(
                file,
                pid,
                startEpochMillis,
                intervalNanos,
                eventCapacity,
                liveCapacity,
                finishedSlots,
                "",
                null,
                List.of());
    }

    /**
     * As the other {@code create}, recording the options text the agent was started with and naming the simulated PMU
     * that makes the hardware counts ({@code pmu}, such as {@code simulated skylake}; null for the kernel's), so that a
     * viewer labels them (tests only). {@code events} are the file's first columns, in order, named before the header
     * is published (as many as {@code eventCapacity}): a viewer that opens the file finds them, and checks its own
     * columns against them from the start.
     *
     * @throws IllegalArgumentException also when {@code pmu} is not {@code simulated} and a model's name
     */
    public static StatsFile create(
            Path file,
            long pid,
            long startEpochMillis,
            long intervalNanos,
            int eventCapacity,
            int liveCapacity,
            int finishedSlots,
            String options,
            String pmu,
            List<String> events)
            throws IOException {
        if (pmu != null && !namesSimulatedPmu(pmu)) {
            throw new IllegalArgumentException("a stats file names a PMU as " + PMU_MODEL + ", not '" + pmu + "'");
        }
        requireWithin("event capacity", eventCapacity, 1, MAX_EVENT_CAPACITY);
        requireWithin("live slot capacity", liveCapacity, 1, MAX_LIVE_SLOTS);
        requireWithin("finished slot count", finishedSlots, 1, MAX_FINISHED_SLOTS);
        requireWithin("pid", pid, 1, MAX_PID);
        if (intervalNanos < MIN_INTERVAL_NANOS || intervalNanos > MAX_INTERVAL_NANOS) {
            throw new IllegalArgumentException(
                    "a stats file allows an interval from 1ms to 1h, not " + intervalNanos + " ns");
        }
        int liveSlots = initialLiveSlots(liveCapacity);
        long liveStart = liveOffset(eventCapacity, finishedSlots);
        FileChannel channel = OutputFile.createUnlessLocked(file)
                .orElseThrow(() -> new IOException(file + " is the stats file of another process, which writes it now:"
                        + " perfpin replaces no live JVM's stats file"));
        try {
            extend(channel, fileSize(eventCapacity, liveSlots, finishedSlots));
            MappedByteBuffer fixed = channel.map(FileChannel.MapMode.READ_WRITE, 0, liveStart);
            fixed.order(ByteOrder.LITTLE_ENDIAN);
            MappedByteBuffer live = mapLive(channel, liveStart, (long) slotSize(eventCapacity) * liveSlots);
            Object key = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
            StatsFile stats = new StatsFile(
                    file, channel, key, fixed, live, eventCapacity, liveSlots, liveCapacity, finishedSlots);
            stats.writeHeader(pid, startEpochMillis, intervalNanos, options, pmu == null ? "" : pmu, events);
            return stats;
        } catch (IOException | RuntimeException | Error e) {
            channel.close();
            throw e;
        }
    }

    private static MappedByteBuffer mapLive(FileChannel channel, long offset, long length) throws IOException {
        MappedByteBuffer live = channel.map(FileChannel.MapMode.READ_WRITE, offset, length);
        live.order(ByteOrder.LITTLE_ENDIAN);
        return live;
    }

    /**
     * Grows the file to {@code size} with zeros written, not a hole: a page of a hole that the file system has no
     * room for (a full tmpfs) would fault when the mapping first writes it, killing the thread that did. Written, a
     * full disk is an IOException here, said as such.
     */
    private static void extend(FileChannel channel, long size) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocate(64 << 10);
        for (long at = channel.size(); at < size; at += zeros.position()) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
            while (zeros.hasRemaining()) {
                channel.write(zeros, at + zeros.position());
            }
        }
    }

    private static void requireWithin(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    "stats file " + what + " " + value + " is outside " + min + " to " + max);
        }
    }

    /** The names of stats files. A class rather than a lambda: it is first used on the sampler of a JVM that starts. */
    private static final Predicate<String> STATS_FILES = new Predicate<>() {
        @Override
        public boolean test(String name) {
            return StatsFileName.parse(name).isPresent();
        }
    };

    /** The header's bytes up to the closed field's end: what tells a file whose writer is gone. */
    private static final int STALE_HEADER = CLOSED_OFFSET + 8;

    /**
     * Removes from {@code dir}, where files are named as {@link StatsFileName} says, the stats files whose writer is
     * provably gone, as HotSpot does with its hsperfdata files: a JVM that was killed could not remove its own. A
     * dead JVM's counts are kept in its recording ({@code out=}), not here. A file that a process holds locked is
     * never removed: its writer lives, in whatever pid namespace ({@link #create}). Of the others, a file goes when
     * its JVM is of this pid namespace and no process has its pid (where this {@code /proc} shows this namespace's
     * pids), or when it is of this layout version and its writer did not mark it closed while its JVM ran on (an
     * agent's detach): a writer that ended its JVM's way, or was killed. This JVM's own name is left to its
     * {@link #create}. Returns how many went.
     */
    public static int removeStale(OwnedDirectory dir) {
        StatsFileName own = StatsFileName.ofThisProcess();
        boolean procShowsOurs = ThisProcess.procIsOwnNamespace();
        int removed = 0;
        try {
            for (String name : dir.names(STATS_FILES)) {
                StatsFileName jvm = StatsFileName.parse(name).orElseThrow();
                if (name.equals(own.name())) {
                    continue; // probing a file this process may lock would drop its lock (POSIX locks)
                }
                try {
                    Optional<ByteBuffer> header = dir.readUnlocked(name, STALE_HEADER);
                    if (header.isEmpty()) {
                        continue; // written now, or gone already
                    }
                    boolean ours = jvm.onHost() ? own.onHost() : jvm.pidNamespace() == own.pidNamespace();
                    // Not ProcessHandle.of: its first use starts the JDK's process reaper machinery (an executor and
                    // a dozen classes) in the application's JVM, where a look at /proc does the same.
                    boolean gone = ours && procShowsOurs && !new File("/proc/" + jvm.pid()).exists();
                    if ((gone || writerEnded(header.get())) && dir.delete(name)) {
                        removed++;
                    }
                } catch (IOException e) {
                    // unreadable, or gone already
                }
            }
        } catch (IOException e) {
            // unreadable: nothing removed
        }
        return removed;
    }

    /** Whether an unlocked file's header says its writer ended: of this version, not closed while its JVM ran on. */
    private static boolean writerEnded(ByteBuffer header) {
        header.order(ByteOrder.LITTLE_ENDIAN);
        return header.limit() == STALE_HEADER
                && header.getInt(MAGIC_OFFSET) == MAGIC
                && header.getInt(VERSION_OFFSET) == VERSION
                && header.getLong(CLOSED_OFFSET) != StatsClosing.WHILE_RUNNING.value;
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
            Object key = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
            return Objects.equals(key, fileKey) ? null : "another file took its place";
        } catch (NoSuchFileException e) {
            return "it was removed";
        } catch (IOException e) {
            return "it cannot be checked: " + e;
        }
    }

    private void writeHeader(
            long pid, long startEpochMillis, long intervalNanos, String options, String pmu, List<String> events) {
        ByteBuffer b = fixed;
        for (String event : events) {
            if (eventIndex(event) < 0) {
                break; // the file names no more: as for an event named later, its column is left out
            }
        }
        StatsStrings.put(b, PMU_OFFSET, PMU_SIZE, pmu);
        byte[] text = options.getBytes(StandardCharsets.UTF_8);
        b.putInt(OPTIONS_LENGTH_OFFSET, text.length);
        b.putInt(OPTIONS_CRC_OFFSET, OptionsText.crc(text));
        StatsStrings.put(b, trailerOffset(capacity), OPTIONS_TEXT_SIZE, options);
        b.putInt(MAGIC_OFFSET, MAGIC);
        b.putLong(PID_OFFSET, pid);
        b.putLong(START_TIME_OFFSET, startEpochMillis);
        b.putLong(PID_NAMESPACE_OFFSET, ThisProcess.pidNamespace());
        b.putLong(PROCESS_START_OFFSET, ThisProcess.startTicks());
        b.putLong(INTERVAL_OFFSET, intervalNanos);
        b.putInt(EVENT_CAPACITY_OFFSET, capacity);
        b.putInt(LIVE_SLOTS_OFFSET, liveSlots);
        b.putInt(LIVE_CAPACITY_OFFSET, liveCapacity);
        b.putInt(FINISHED_SLOTS_OFFSET, finishedSlots);
        b.putInt(SLOT_SIZE_OFFSET, slotSize);
        int aggregate = aggregateOffset(capacity);
        b.putInt(aggregate + STATE_OFFSET, STATE_AGGREGATE);
        b.putInt(aggregate + LAST_CPU_OFFSET, -1);
        StatsStrings.putName(b, aggregate + NAME_OFFSET, NAME_SIZE, "(older finished threads)");
        releaseInt(b, VERSION_OFFSET, VERSION);
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
        StatsStrings.put(fixed, EVENT_NAMES_OFFSET + events * EVENT_NAME_SIZE, EVENT_NAME_SIZE, name);
        eventNames.add(name);
        releaseInt(fixed, EVENT_COUNT_OFFSET, events + 1);
        return events;
    }

    /**
     * Posts a notice for viewers, after the ones posted before; false when the file holds
     * {@link StatsLayout#NOTICE_CAPACITY} already.
     */
    public boolean notice(AgentNotice notice) {
        if (noticesPosted == NOTICE_CAPACITY) {
            return false;
        }
        int offset = trailerOffset(capacity) + OPTIONS_TEXT_SIZE + noticesPosted * NOTICE_SIZE;
        fixed.putInt(offset + NOTICE_KIND_OFFSET, notice.kind().code());
        StatsStrings.put(fixed, offset + NOTICE_TEXT_OFFSET, NOTICE_SIZE - NOTICE_TEXT_OFFSET, notice.text());
        noticesPosted++;
        releaseLong(fixed, NOTICES_POSTED_OFFSET, (long) noticesPosted);
        return true;
    }

    /** Says why the kernel refused the event of a column, unless a reason is there already. */
    public void eventRefused(int column, String reason) {
        if (column >= 0 && !refusalWritten[column]) {
            StatsStrings.put(
                    fixed, eventReasonsOffset(capacity) + column * EVENT_REASON_SIZE, EVENT_REASON_SIZE, reason);
            refusalWritten[column] = true;
        }
    }

    /** Says where the values of a column come from when not from perf_event_open (as {@code proc}), once. */
    public void eventSource(int column, String source) {
        if (column >= 0 && !sourceWritten[column]) {
            StatsStrings.put(
                    fixed, eventSourcesOffset(capacity) + column * EVENT_SOURCE_SIZE, EVENT_SOURCE_SIZE, source);
            sourceWritten[column] = true;
        }
    }

    /**
     * Claims the lowest free live slot for a thread, growing the file when none is free, and publishes it with its
     * counts as read so far (its first sample follows at once); returns its index, or -1 when the file has its most
     * live slots taken.
     *
     * @throws IOException when the file cannot grow (the disk is full)
     */
    public int claimSlot(PublishedThread thread) throws IOException {
        if (freeLive.isEmpty() && !grow()) {
            return -1;
        }
        int slot = freeLive.pollFirst();
        int offset = liveSlotOffset(slot);
        beginWrite(live, offset, liveSequences, slot);
        live.putInt(offset + STATE_OFFSET, STATE_RUNNING);
        writeIdentity(live, offset, thread, flags(thread, false));
        clearCounters(live, offset, liveColumns[slot]);
        writeCounts(live, offset, thread);
        endWrite(live, offset, liveSequences, slot);
        liveColumns[slot] = thread.columns();
        return slot;
    }

    /** Doubles the live slots, up to the capacity: the file first, then the count that readers go by. */
    private boolean grow() throws IOException {
        if (liveSlots == liveCapacity) {
            return false;
        }
        int grown = (int) Math.min(liveCapacity, 2L * liveSlots);
        long grownSize = fileSize(capacity, grown, finishedSlots);
        extend(channel, grownSize);
        MappedByteBuffer bigger = mapLive(channel, liveOffset(capacity, finishedSlots), (long) slotSize * grown);
        outgrown.add(live);
        live = bigger;
        liveSequences = Arrays.copyOf(liveSequences, grown);
        liveColumns = Arrays.copyOf(liveColumns, grown);
        for (int slot = liveSlots; slot < grown; slot++) {
            freeLive.addLast(slot);
        }
        liveSlots = grown;
        size = grownSize;
        releaseInt(fixed, LIVE_SLOTS_OFFSET, grown);
        return true;
    }

    /** How many live slots the file has now. */
    public int liveSlots() {
        return liveSlots;
    }

    /** Publishes a live thread's cumulative counts, its CPUs and pin, and when they were read. */
    public void publish(int slot, PublishedThread thread) {
        int offset = liveSlotOffset(slot);
        beginWrite(live, offset, liveSequences, slot);
        live.putInt(offset + LAST_CPU_OFFSET, -1);
        live.putInt(offset + FLAGS_OFFSET, flags(thread, false));
        StatsStrings.put(live, offset + CPUS_OFFSET, CPUS_SIZE, thread.cpus());
        writeCounts(live, offset, thread);
        endWrite(live, offset, liveSequences, slot);
        liveColumns[slot] = thread.columns();
    }

    /**
     * Records a thread's final counts in the finished ring, and frees its live slot when it had one ({@code slot}
     * negative when it never got one: its total is kept all the same).
     *
     * @param stillRunning the thread still ran when its counting stopped (the agent detached, the JVM exited)
     */
    public void finish(int slot, PublishedThread thread, boolean stillRunning) {
        writeAggregate(); // what finishIntoAggregate added, before the ring moves on
        int ringSlot = (int) (finishedTotal % finishedSlots);
        FinalCounts evicted = ring[ringSlot];
        if (evicted != null) {
            foldIntoAggregate(evicted);
        }
        ring[ringSlot] = finalCounts(thread.counts(), thread.columns());
        int finished = (int) finishedOffset(capacity, ringSlot);
        beginWrite(fixed, finished, ringSequences, ringSlot);
        fixed.putInt(finished + STATE_OFFSET, STATE_FINISHED);
        writeIdentity(fixed, finished, thread, flags(thread, stillRunning));
        clearCounters(fixed, finished, evicted == null ? null : evicted.columns());
        writeCounts(fixed, finished, thread);
        endWrite(fixed, finished, ringSequences, ringSlot);
        finished(slot);
    }

    /**
     * Adds a thread's final counts to the aggregate alone, as {@link #finish} would once the ring overwrote its
     * record, and frees its live slot when it had one. For a thread that ended among more in one tick than the ring
     * holds: the ring would overwrite it within that tick, so it is never written there (in a churn of short threads,
     * most of what the file wrote). What it changes is published with the aggregate slot, by the next {@link #finish}
     * (the ring's, which follow) or {@link #sampled}: the finished count, and its live slot freed, only then, so that
     * a reader never sees it in no slot at all; the file is then as if it had gone through the ring.
     */
    public void finishIntoAggregate(int slot, PublishedThread thread) {
        CounterSnapshot counts = thread.counts();
        int[] columns = thread.columns();
        for (int i = 0; i < columns.length; i++) {
            addToAggregate(columns[i], counts.raw(i), counts.enabledNanos(i), counts.runningNanos(i));
        }
        aggregateThreads++;
        aggregateUnwritten = true;
        finishedTotal++;
        if (slot >= 0) {
            leavingLive.add(slot);
        }
    }

    /** How many threads the ring of finished ones holds. */
    public int finishedSlots() {
        return finishedSlots;
    }

    /** One more thread finished, counted for readers; its live slot, if it had one ({@code slot} >= 0), is free. */
    private void finished(int slot) {
        finishedTotal++;
        releaseLong(fixed, FINISHED_TOTAL_OFFSET, finishedTotal);
        if (slot >= 0) {
            freeLiveSlot(slot);
        }
    }

    private void freeLiveSlot(int slot) {
        int offset = liveSlotOffset(slot);
        beginWrite(live, offset, liveSequences, slot);
        live.putInt(offset + STATE_OFFSET, STATE_FREE);
        endWrite(live, offset, liveSequences, slot);
        freeLive.addFirst(slot);
    }

    private static int flags(PublishedThread thread, boolean stillRunning) {
        return (thread.pin() & PIN_MASK) | (stillRunning ? FLAG_STILL_RUNNING : 0) | nameCut(thread.name());
    }

    private static int nameCut(String name) {
        return StatsStrings.nameKept(name, NAME_SIZE) < name.length() ? FLAG_NAME_CUT : 0;
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
        for (int i = 0; i < evicted.columns.length; i++) {
            addToAggregate(evicted.columns[i], evicted.values[i], evicted.enabled[i], evicted.running[i]);
        }
        aggregateThreads++;
        aggregateUnwritten = true;
        writeAggregate();
    }

    private void addToAggregate(int column, long value, long enabled, long running) {
        if (column >= 0) {
            aggregate[3 * column] += value;
            aggregate[3 * column + 1] += enabled;
            aggregate[3 * column + 2] += running;
            aggregateChanged[column] = true;
        }
    }

    /**
     * The aggregate slot as its sums are now (its thread count, and the columns that changed since it was written),
     * then what {@link #finishIntoAggregate} left to publish with it: the finished count, the live slots let go.
     */
    private void writeAggregate() {
        if (!aggregateUnwritten) {
            return;
        }
        int offset = aggregateOffset(capacity);
        beginWrite(fixed, offset, aggregateSequence, 0);
        fixed.putInt(offset + THREADS_OFFSET, aggregateThreads);
        for (int column = 0; column < capacity; column++) {
            if (aggregateChanged[column]) {
                aggregateChanged[column] = false;
                writeCounter(
                        fixed,
                        offset,
                        column,
                        aggregate[3 * column],
                        aggregate[3 * column + 1],
                        aggregate[3 * column + 2]);
            }
        }
        endWrite(fixed, offset, aggregateSequence, 0);
        aggregateUnwritten = false;
        releaseLong(fixed, FINISHED_TOTAL_OFFSET, finishedTotal);
        for (int slot : leavingLive) {
            freeLiveSlot(slot);
        }
        leavingLive.clear();
    }

    /**
     * Adds an ended virtual thread's final counts to its group (its name, numeric suffix stripped), written by the
     * next {@link #publishVirtualGroups}; false when the file shows {@link StatsLayout#VIRTUAL_GROUPS} groups
     * already, none of them this one.
     *
     * @param columns for each of its events, the file's column ({@link #eventIndex}); negative skips the event
     */
    public boolean virtualEnded(String group, CounterSnapshot counts, int[] columns) {
        return addEnded(group, 1, counts, columns, true);
    }

    /**
     * As {@link #virtualEnded}, for {@code members} ended virtual threads of a group at once, {@code counts} their
     * totals summed: the agent's queue of those waiting for their records was full as they ended. They join the
     * group's sums and members, not the p50 and p99 of one member, which a sum does not give.
     */
    public boolean virtualFolded(String group, int members, CounterSnapshot counts, int[] columns) {
        return addEnded(group, members, counts, columns, false);
    }

    private boolean addEnded(String group, int members, CounterSnapshot counts, int[] columns, boolean one) {
        VirtualGroup g = virtualGroup(group);
        if (g == null) {
            return false;
        }
        g.threads += members;
        g.changed = true;
        for (int i = 0; i < columns.length; i++) {
            int column = columns[i];
            if (column < 0 || !counts.isOpened(i)) {
                continue;
            }
            add(g.sums, g.counted, column, counts, i);
            if (one) {
                if (g.members[column] == null) {
                    g.members[column] = new ValueHistogram();
                }
                g.members[column].record(counts.value(i));
            }
        }
        return true;
    }

    /** The group named so, made if new; null when the file shows {@link StatsLayout#VIRTUAL_GROUPS} others. */
    private VirtualGroup virtualGroup(String group) {
        VirtualGroup g = virtualGroups.get(group);
        if (g == null) {
            if (virtualGroups.size() == VIRTUAL_GROUPS) {
                return null;
            }
            g = new VirtualGroup(virtualGroups.size(), group, capacity);
            virtualGroups.put(group, g);
            g.changed = true; // its four slots are written at once: a reader finds them together
        }
        return g;
    }

    /**
     * The members of a group running now, {@code members} of them, and their totals so far summed ({@code counts}),
     * written by the next {@link #publishVirtualGroups}; a group not given between two calls of that has none running.
     * False when the file shows {@link StatsLayout#VIRTUAL_GROUPS} groups already, none of them this one.
     *
     * @param columns for each of its events, the file's column ({@link #eventIndex}); negative skips the event
     */
    public boolean virtualRunning(String group, int members, CounterSnapshot counts, int[] columns) {
        VirtualGroup g = virtualGroup(group);
        if (g == null) {
            return false;
        }
        g.runningThreads = members;
        for (int i = 0; i < columns.length; i++) {
            int column = columns[i];
            if (column < 0 || !counts.isOpened(i)) {
                continue;
            }
            add(g.running, g.runningCounted, column, counts, i); // zero since the last publishVirtualGroups
        }
        return true;
    }

    /** Adds event {@code i}'s value and times to {@code column}'s three sums, and marks the column counted. */
    private static void add(long[] sums, boolean[] counted, int column, CounterSnapshot counts, int i) {
        sums[3 * column] += counts.raw(i);
        sums[3 * column + 1] += counts.enabledNanos(i);
        sums[3 * column + 2] += counts.runningNanos(i);
        counted[column] = true;
    }

    /**
     * Writes the slots of each virtual group that changed since the last call, read to {@code readNanos}: those of
     * its ended members (their sums, and the p50 and p99 of a member's totals) when a member ended, that of its
     * running members when they or their sums changed. Then the running members given since are forgotten: a group
     * not given again before the next call has none.
     */
    public void publishVirtualGroups(long readNanos) {
        for (VirtualGroup g : virtualGroups.values()) {
            boolean ended = g.changed;
            boolean running = runningToShow(g);
            g.changed = false;
            for (int kind = 0; kind < VIRTUAL_GROUP_SLOTS; kind++) {
                if (kind < 3 ? ended : running) {
                    writeVirtualSlot(g, kind, readNanos);
                }
            }
            g.runningThreads = 0;
            Arrays.fill(g.running, 0);
            Arrays.fill(g.runningCounted, false);
        }
    }

    /**
     * Works out the running slot's sums: the running members', or more where the ended members' sums and the running
     * ones' would fall below what the two slots showed at the last call, since each only grows. They fall when a
     * member ended after the running ones were summed but its totals reached {@link #virtualEnded} only after this
     * call: it was in the running sums then, it is in neither now; it is in the ended ones at the next call, where
     * its share here goes. Whether the slot changed.
     */
    private static boolean runningToShow(VirtualGroup g) {
        boolean changed = g.runningThreads != g.runningThreadsShown;
        for (int i = 0; i < g.running.length; i++) {
            long shown = Math.max(g.running[i], g.runningShown[i] - (g.sums[i] - g.endedShown[i]));
            changed |= shown != g.runningShown[i];
            g.runningShown[i] = shown;
        }
        for (int e = 0; e < g.runningCounted.length; e++) {
            // a column kept up by the ended members' share (above) stays counted
            boolean counted = g.runningCounted[e] || g.runningShown[3 * e + 1] > 0;
            changed |= counted != g.runningCountedShown[e];
            g.runningCountedShown[e] = counted;
        }
        g.runningThreadsShown = g.runningThreads;
        System.arraycopy(g.sums, 0, g.endedShown, 0, g.sums.length);
        return changed;
    }

    /** Writes slot {@code kind} of the group: 0 its ended members' sums, 1 and 2 their p50 and p99, 3 the running. */
    private void writeVirtualSlot(VirtualGroup g, int kind, long readNanos) {
        int offset = (int) virtualGroupOffset(capacity, g.index, kind);
        int sequence = VIRTUAL_GROUP_SLOTS * g.index + kind;
        boolean running = kind == 3;
        beginWrite(fixed, offset, virtualSequences, sequence);
        fixed.putInt(offset + STATE_OFFSET, VIRTUAL_STATES[kind]);
        fixed.putInt(offset + LAST_CPU_OFFSET, -1);
        fixed.putInt(offset + THREADS_OFFSET, running ? g.runningThreadsShown : g.threads);
        fixed.putLong(offset + READ_FROM_OFFSET, readNanos);
        fixed.putLong(offset + READ_TO_OFFSET, readNanos);
        fixed.putInt(offset + FLAGS_OFFSET, nameCut(g.name));
        StatsStrings.putName(fixed, offset + NAME_OFFSET, NAME_SIZE, g.name);
        Arrays.fill(countedBits, (byte) 0);
        boolean[] counted = running ? g.runningCountedShown : g.counted;
        for (int e = 0; e < capacity; e++) {
            if (counted[e]) {
                countedBits[e >> 3] |= (byte) (1 << (e & 7));
            }
            if (kind == 0) {
                writeCounter(fixed, offset, e, g.sums[3 * e], g.sums[3 * e + 1], g.sums[3 * e + 2]);
            } else if (running) {
                long[] r = g.runningShown;
                writeCounter(fixed, offset, e, r[3 * e], r[3 * e + 1], r[3 * e + 2]);
            } else {
                long value = g.members[e] == null ? 0 : g.members[e].valueAt(kind == 1 ? 0.50 : 0.99);
                writeCounter(fixed, offset, e, value, 0, 0);
            }
        }
        fixed.put(offset + COUNTED_OFFSET, countedBits);
        endWrite(fixed, offset, virtualSequences, sequence);
    }

    /** How many file descriptors the agent may hold: said once, before any thread is not counted. */
    public void descriptorBudget(long descriptors) {
        fixed.putLong(DESCRIPTOR_BUDGET_OFFSET, descriptors);
    }

    /** One more thread enrolled without counters, for want of file descriptors. */
    public void threadNotCounted() {
        threadsNotCounted++;
        releaseLong(fixed, THREADS_NOT_COUNTED_OFFSET, threadsNotCounted);
    }

    /**
     * Ends a tick: every slot it wrote is published, so a viewer that sees the sample count grow shows a window
     * that ends here. Then the heartbeat tells readers the sampler is alive.
     *
     * @param startNanos {@code System.nanoTime()} when the tick began
     */
    public void sampled(long startNanos, long epochMillis) {
        writeAggregate();
        samples++;
        fixed.putLong(SAMPLE_TIME_OFFSET, startNanos);
        releaseLong(fixed, SAMPLES_OFFSET, samples);
        heartbeat(epochMillis);
    }

    /** Tells readers the sampler is alive. */
    public void heartbeat(long epochMillis) {
        releaseLong(fixed, HEARTBEAT_OFFSET, epochMillis);
    }

    /**
     * Marks the file closed while the JVM runs on ({@link StatsClosing#WHILE_RUNNING}: a detach, a stop): readers then
     * know no more updates come. The counts stay readable. Ask {@link #damage} first: this writes too.
     */
    @Override
    public void close() throws IOException {
        close(StatsClosing.WHILE_RUNNING);
    }

    /** As {@link #close()}, saying why: {@link StatsClosing#AT_EXIT} from the JVM's exit. */
    public void close(StatsClosing why) throws IOException {
        if (why == StatsClosing.OPEN) {
            throw new IllegalArgumentException("a close is no " + why);
        }
        writeAggregate();
        releaseLong(fixed, CLOSED_OFFSET, why.value);
        fixed.force();
        live.force();
        channel.close();
    }

    /** Lets go of a damaged file without another write: it stays as it is, not marked closed. */
    public void abandon() throws IOException {
        channel.close();
    }

    /**
     * After {@link #close} or {@link #abandon}: the file and its pages leave this process now, not when the GC
     * collects the mappings, which a quiet application may never do ({@link FileMappings}); without perfpin's C
     * library the GC still does. A write that comes after all goes nowhere.
     */
    public void release(Syscalls syscalls) {
        FileMappings.release(syscalls, fixed);
        FileMappings.release(syscalls, live);
        for (MappedByteBuffer mapping : outgrown) {
            FileMappings.release(syscalls, mapping);
        }
    }

    private static void beginWrite(ByteBuffer buffer, int offset, long[] sequences, int slot) {
        buffer.putLong(offset + SEQUENCE_OFFSET, ++sequences[slot]);
        VarHandle.storeStoreFence(); // the odd sequence is visible before any field changes
    }

    private static void endWrite(ByteBuffer buffer, int offset, long[] sequences, int slot) {
        releaseLong(buffer, offset + SEQUENCE_OFFSET, ++sequences[slot]);
    }

    /**
     * A release store: what was written before it is visible to a reader that sees it. A fence and a plain store
     * (aligned, so one instruction) rather than a byte-buffer VarHandle's {@code setRelease}, whose access chain
     * (guards, scoped memory access, bounds) was inlined into every caller: compiling {@link #finish} alone took
     * C2 over 200 ms of an application's CPU on a small machine.
     */
    private static void releaseLong(ByteBuffer buffer, int offset, long value) {
        VarHandle.releaseFence();
        buffer.putLong(offset, value);
    }

    /** As {@link #releaseLong}. */
    private static void releaseInt(ByteBuffer buffer, int offset, int value) {
        VarHandle.releaseFence();
        buffer.putInt(offset, value);
    }

    private static void writeIdentity(ByteBuffer buffer, int offset, PublishedThread thread, int flags) {
        buffer.putInt(offset + TID_OFFSET, thread.tid());
        buffer.putLong(offset + JAVA_ID_OFFSET, thread.javaId());
        buffer.putInt(offset + LAST_CPU_OFFSET, -1);
        buffer.putInt(offset + THREADS_OFFSET, 1);
        buffer.putLong(offset + ENROLLED_OFFSET, thread.enrolledNanos());
        buffer.putInt(offset + FLAGS_OFFSET, flags);
        StatsStrings.putName(buffer, offset + NAME_OFFSET, NAME_SIZE, thread.name());
        StatsStrings.put(buffer, offset + CPUS_OFFSET, CPUS_SIZE, thread.cpus());
    }

    /** Its counts into their columns, which of them it counts, and the times they were read between. */
    private void writeCounts(ByteBuffer buffer, int offset, PublishedThread thread) {
        buffer.putLong(offset + READ_FROM_OFFSET, thread.readFromNanos());
        buffer.putLong(offset + READ_TO_OFFSET, thread.readToNanos());
        CounterSnapshot counts = thread.counts();
        int[] columns = thread.columns();
        Arrays.fill(countedBits, (byte) 0);
        for (int i = 0; i < columns.length; i++) {
            if (columns[i] >= 0) {
                writeCounter(buffer, offset, columns[i], counts.raw(i), counts.enabledNanos(i), counts.runningNanos(i));
                if (counts.isOpened(i)) {
                    countedBits[columns[i] >> 3] |= (byte) (1 << (columns[i] & 7));
                }
            }
        }
        buffer.put(offset + COUNTED_OFFSET, countedBits);
    }

    /**
     * Zeroes the counters a slot's last thread wrote ({@code columns}, null when none did), before the next writes
     * its own: a column only the last one counted must not show its counts. Zeroing every column the file has room
     * for (the agent's has 64) for each thread that ended, and writing every column of the aggregate, was 128 of the
     * 134 counters (400 writes of a long) written per thread in a churn of short threads, and most of what the JIT
     * compiled for them.
     */
    private static void clearCounters(ByteBuffer buffer, int slotOffset, int[] columns) {
        if (columns != null) {
            for (int column : columns) {
                if (column >= 0) {
                    writeCounter(buffer, slotOffset, column, 0, 0, 0);
                }
            }
        }
    }

    private static void writeCounter(
            ByteBuffer buffer, int slotOffset, int event, long value, long enabled, long running) {
        int offset = slotOffset + COUNTERS_OFFSET + event * COUNTER_SIZE;
        buffer.putLong(offset, value);
        buffer.putLong(offset + 8, enabled);
        buffer.putLong(offset + 16, running);
    }

    private int liveSlotOffset(int slot) {
        return slot * slotSize;
    }
}
