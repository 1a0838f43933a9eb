package io.perfpin.stats;

import static io.perfpin.stats.StatsLayout.*;

import io.perfpin.files.NamedFile;
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
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

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
    /**
     * The most counter values (slots that may be in use, times the events named) that one read takes: each becomes a
     * count, an enabled and a running time, 24 bytes, so about 200 MB at most. An agent at its largest, 65,536 live
     * threads of 64 events, needs half of it; a file that asks more was not made by one, and is refused rather than
     * read into the viewer's memory and time.
     */
    static final long MAX_VALUES_READ = 8L << 20;
    /** Spins on a slot mid-update before parking between looks: the writer is usually done by then. */
    private static final int SPINS = 100;

    private static final long PAUSE_NANOS = 50_000L;

    private final Path file;
    private final FileChannel channel;
    /** Header, trailer, aggregate and ring: mapped once. */
    private final ByteBuffer fixed;

    private final Header header;
    private final long settleNanos;
    /** The live slots as far as this reader has mapped them: anew when the file says it has more. */
    private ByteBuffer live;

    private int liveMapped;
    /** Where a slot is copied under its seqlock, to be decoded once the copy is known to be consistent. */
    private final byte[] slotCopy;
    /** What earlier reads saw of the counts that never fall. */
    private int eventsSeen;

    private long finishedSeen;
    private int noticesSeen;
    private long samplesSeen;

    /** The fields the writer sets once, before the version: checked when the file is opened. */
    private record Header(
            int magic,
            int version,
            long pid,
            long startEpochMillis,
            long intervalNanos,
            int capacity,
            int liveCapacity,
            int finishedSlots,
            int slotSize,
            String pmu,
            long pidNamespace,
            long processStart) {}

    /** A read of the mapping that may find the file damaged. */
    private interface MappedRead<T> {
        T read() throws IOException;
    }

    private StatsFileReader(Path file, FileChannel channel, ByteBuffer fixed, Header header, long settleNanos) {
        this.file = file;
        this.channel = channel;
        this.fixed = fixed;
        this.header = header;
        this.settleNanos = settleNanos;
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
            throw new NotAStatsFileException(file + " is not a perfpin stats file (not a regular file)");
        }
        return open(file, FileChannel.open(file, StandardOpenOption.READ), settleNanos);
    }

    /**
     * As {@link #open(Path)}, over a file already opened for reading (a target's, reached as its user), shown in
     * messages as {@code file}; the channel is closed with the reader, or at once when it is no stats file.
     */
    public static StatsFileReader open(FileChannel channel, Path file) throws IOException {
        return open(file, channel, SETTLE_NANOS);
    }

    /**
     * A stats file a user named ({@code top --stats FILE}), opened as every file a user names is
     * ({@link NamedFile}): reached through no other user's link, a regular file before it is opened.
     *
     * @throws NamedFile.Refused when it cannot be reached or is no regular file, in one line naming it
     * @throws IOException       as {@link #open(Path)}
     */
    public static StatsFileReader openNamed(Path file) throws IOException {
        return open(file, NamedFile.openForReading(file), SETTLE_NANOS);
    }

    /** Takes {@code channel}, closed here when the file is no stats file. */
    private static StatsFileReader open(Path file, FileChannel channel, long settleNanos) throws IOException {
        try {
            if (channel.size() == 0) {
                throw beingCreated(file); // created, not yet sized: the agent makes it on its sampler thread
            }
            if (channel.size() < EVENT_NAMES_OFFSET) {
                throw new NotAStatsFileException(file + " is not a perfpin stats file (too short)");
            }
            ByteBuffer first = channel.map(FileChannel.MapMode.READ_ONLY, 0, EVENT_NAMES_OFFSET)
                    .order(ByteOrder.LITTLE_ENDIAN);
            Header header = guarded(file, channel, EVENT_NAMES_OFFSET, () -> readHeader(first));
            checkHeader(file, header);
            int liveSlots = guarded(file, channel, EVENT_NAMES_OFFSET, () -> liveSlots(file, first, 1, header));
            long expected = fileSize(header.capacity, liveSlots, header.finishedSlots);
            long largest = fileSize(header.capacity, header.liveCapacity, header.finishedSlots);
            long actual = channel.size();
            if (actual < expected) {
                throw truncated(file, actual, expected);
            }
            if (actual > largest) {
                throw damaged(file, actual + " bytes long, but its header allows at most " + largest);
            }
            ByteBuffer fixed = channel.map(
                            FileChannel.MapMode.READ_ONLY, 0, liveOffset(header.capacity, header.finishedSlots))
                    .order(ByteOrder.LITTLE_ENDIAN);
            StatsFileReader reader = new StatsFileReader(file, channel, fixed, header, settleNanos);
            reader.mapLive(liveSlots);
            return reader;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static IOException beingCreated(Path file) {
        return new StatsFileBeingCreatedException(file + " is still being created; try again");
    }

    private static Header readHeader(ByteBuffer fixed) {
        int version = (int) INTS.getAcquire(fixed, VERSION_OFFSET); // written last: the fields below are complete
        return new Header(
                fixed.getInt(MAGIC_OFFSET),
                version,
                fixed.getLong(PID_OFFSET),
                fixed.getLong(START_TIME_OFFSET),
                fixed.getLong(INTERVAL_OFFSET),
                fixed.getInt(EVENT_CAPACITY_OFFSET),
                fixed.getInt(LIVE_CAPACITY_OFFSET),
                fixed.getInt(FINISHED_SLOTS_OFFSET),
                fixed.getInt(SLOT_SIZE_OFFSET),
                StatsStrings.read(fixed, PMU_OFFSET, PMU_SIZE),
                fixed.getLong(PID_NAMESPACE_OFFSET),
                fixed.getLong(PROCESS_START_OFFSET));
    }

    /** Every field the writer set once is within bounds. */
    private static void checkHeader(Path file, Header h) throws IOException {
        if (h.magic == 0 && h.version == 0) {
            throw beingCreated(file); // sized, its header not yet written
        }
        if (h.magic != MAGIC) {
            throw new NotAStatsFileException(file + " is not a perfpin stats file");
        }
        if (h.version == 0) {
            throw beingCreated(file);
        }
        if (h.version != VERSION) {
            throw new IOException(file + " has layout version " + h.version + "; this perfpin reads " + VERSION + ": "
                    + (h.version < VERSION
                            ? "an older perfpin's agent wrote it: view it with that perfpin, or start the JVM again"
                                    + " with this one's agent"
                            : "a newer perfpin's agent wrote it: view it with that perfpin"));
        }
        within(file, "event capacity", h.capacity, 1, MAX_EVENT_CAPACITY);
        within(file, "live slot capacity", h.liveCapacity, 1, MAX_LIVE_SLOTS);
        within(file, "finished slot count", h.finishedSlots, 1, MAX_FINISHED_SLOTS);
        if (h.slotSize != slotSize(h.capacity)) {
            throw damaged(
                    file,
                    "slot size " + h.slotSize + " (" + slotSize(h.capacity) + " for event capacity " + h.capacity
                            + ")");
        }
        within(file, "pid", h.pid, 1, MAX_PID);
        within(file, "start time", h.startEpochMillis, 0, Long.MAX_VALUE);
        if (h.intervalNanos < MIN_INTERVAL_NANOS || h.intervalNanos > MAX_INTERVAL_NANOS) {
            throw damaged(file, "interval " + h.intervalNanos + " ns (1 ms to 1 h allowed)");
        }
        if (!h.pmu.isEmpty() && !namesSimulatedPmu(h.pmu)) {
            // Shown in a view's heading: only a name the writer could have written reaches a terminal.
            throw damaged(
                    file,
                    "PMU name of " + h.pmu.length() + " characters (none, or simulated and a model's name of lower-case"
                            + " letters, digits and dashes allowed)");
        }
    }

    /** The live slot count the writer published, at least {@code seen} and at most the capacity. */
    private static int liveSlots(Path file, ByteBuffer buffer, int seen, Header h) throws IOException {
        int slots = (int) INTS.getAcquire(buffer, LIVE_SLOTS_OFFSET);
        within(file, "live slot count", slots, seen, h.liveCapacity);
        return slots;
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

    /** The inode of the writer's pid namespace ({@code /proc/PID/ns/pid}); 0 when it could not tell. */
    public long pidNamespace() {
        return header.pidNamespace;
    }

    /** When the writer started: clock ticks from boot, in its time namespace; 0 when it could not tell. */
    public long processStart() {
        return header.processStart;
    }

    public long intervalNanos() {
        return header.intervalNanos;
    }

    /** The simulated PMU that makes the hardware counts, such as {@code simulated skylake} (tests only); else null. */
    public String pmu() {
        return header.pmu.isEmpty() ? null : header.pmu;
    }

    /** Whether, and why, the writer closed the file. */
    public StatsClosing closing() throws IOException {
        return guarded(this::readClosing);
    }

    public boolean isClosed() throws IOException {
        return closing() != StatsClosing.OPEN;
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
        mapLiveSlots();
        // Names first: a slot only fills columns already named, so every column read below has its name.
        int events = (int) INTS.getAcquire(fixed, EVENT_COUNT_OFFSET);
        if (events < eventsSeen || events > header.capacity) {
            throw damaged(file, "event count " + events + " (" + eventsSeen + " to " + header.capacity + " allowed)");
        }
        List<String> names = new ArrayList<>(events);
        List<String> refusals = new ArrayList<>(events);
        List<String> sources = new ArrayList<>(events);
        Set<String> distinct = new HashSet<>();
        for (int e = 0; e < events; e++) {
            String name = StatsStrings.read(fixed, EVENT_NAMES_OFFSET + e * EVENT_NAME_SIZE, EVENT_NAME_SIZE);
            if (name.isEmpty() || !distinct.add(name)) {
                throw damaged(file, "event " + e + (name.isEmpty() ? " has no name" : " has the name of another"));
            }
            names.add(name);
            refusals.add(StatsStrings.read(
                    fixed, eventReasonsOffset(header.capacity) + e * EVENT_REASON_SIZE, EVENT_REASON_SIZE));
            sources.add(StatsStrings.read(
                    fixed, eventSourcesOffset(header.capacity) + e * EVENT_SOURCE_SIZE, EVENT_SOURCE_SIZE));
        }
        // The sample count before the slots: every slot of that tick is written by then, perhaps of later ones too.
        long samples = (long) LONGS.getAcquire(fixed, SAMPLES_OFFSET);
        if (samples < samplesSeen) {
            throw damaged(file, "samples published " + samples + " (" + samplesSeen + " or more allowed)");
        }
        long sampleNanos = fixed.getLong(SAMPLE_TIME_OFFSET);
        long finished = (long) LONGS.getAcquire(fixed, FINISHED_TOTAL_OFFSET);
        if (finished < finishedSeen) {
            throw damaged(file, "finished thread count " + finished + " (" + finishedSeen + " or more allowed)");
        }
        long values = (liveMapped + Math.min(finished, header.finishedSlots)) * (long) events;
        if (values > MAX_VALUES_READ) {
            throw new IOException(
                    file + " holds " + liveMapped + " live and " + Math.min(finished, header.finishedSlots)
                            + " finished thread slots of " + events + " events, " + values + " values: more than the "
                            + MAX_VALUES_READ + " a viewer reads at once, which no agent's file needs");
        }
        List<ThreadSample> threads = new ArrayList<>();
        for (int slot = 0; slot < liveMapped; slot++) {
            add(threads, readSlot(live, slot * header.slotSize, "live slot " + slot, STATE_RUNNING, events, deadline));
        }
        for (int slot = 0; slot < header.finishedSlots; slot++) {
            add(
                    threads,
                    readSlot(
                            fixed,
                            (int) finishedOffset(header.capacity, slot),
                            "finished slot " + slot,
                            STATE_FINISHED,
                            events,
                            deadline));
        }
        add(
                threads,
                readSlot(
                        fixed,
                        aggregateOffset(header.capacity),
                        "the aggregate slot",
                        STATE_AGGREGATE,
                        events,
                        deadline));
        int[] groupStates = {STATE_VIRTUAL_GROUP, STATE_VIRTUAL_P50, STATE_VIRTUAL_P99, STATE_VIRTUAL_RUNNING};
        for (int group = 0; group < VIRTUAL_GROUPS; group++) {
            for (int kind = 0; kind < VIRTUAL_GROUP_SLOTS; kind++) {
                add(
                        threads,
                        readSlot(
                                fixed,
                                (int) virtualGroupOffset(header.capacity, group, kind),
                                "virtual group slot " + (VIRTUAL_GROUP_SLOTS * group + kind),
                                groupStates[kind],
                                events,
                                deadline));
            }
        }
        StatsClosing closing = readClosing();
        long heartbeat = heartbeat();
        long notCounted = (long) LONGS.getAcquire(fixed, THREADS_NOT_COUNTED_OFFSET);
        long budget = fixed.getLong(DESCRIPTOR_BUDGET_OFFSET); // ordered by the acquire above
        if (notCounted < 0 || budget < 0) {
            throw damaged(
                    file,
                    "threads not counted " + notCounted + ", descriptor budget " + budget
                            + " (neither may be negative)");
        }
        List<AgentNotice> notices = notices();
        eventsSeen = events;
        finishedSeen = finished;
        noticesSeen = notices.size();
        samplesSeen = samples;
        return new StatsSnapshot(
                names,
                refusals,
                sources,
                finished,
                closing,
                heartbeat,
                notCounted,
                budget,
                threads,
                notices,
                samples,
                sampleNanos,
                liveMapped,
                pmu());
    }

    private static void add(List<ThreadSample> threads, ThreadSample sample) {
        if (sample != null) {
            threads.add(sample);
        }
    }

    /** Maps the live slots anew when the writer has grown them since the last read. */
    private void mapLiveSlots() throws IOException {
        int slots = liveSlots(file, fixed, liveMapped, header);
        if (slots == liveMapped) {
            return;
        }
        requireSize(file, channel, fileSize(header.capacity, slots, header.finishedSlots));
        mapLive(slots);
    }

    private void mapLive(int slots) throws IOException {
        live = channel.map(
                        FileChannel.MapMode.READ_ONLY,
                        liveOffset(header.capacity, header.finishedSlots),
                        (long) slots * header.slotSize)
                .order(ByteOrder.LITTLE_ENDIAN);
        liveMapped = slots;
    }

    /** The notices posted so far, each written before the count that makes it visible. */
    private List<AgentNotice> notices() throws IOException {
        long posted = (long) LONGS.getAcquire(fixed, NOTICES_POSTED_OFFSET);
        if (posted < noticesSeen || posted > NOTICE_CAPACITY) {
            throw damaged(
                    file, "notices posted " + posted + " (" + noticesSeen + " to " + NOTICE_CAPACITY + " allowed)");
        }
        int first = trailerOffset(header.capacity) + OPTIONS_TEXT_SIZE;
        List<AgentNotice> notices = new ArrayList<>((int) posted);
        for (int n = 0; n < posted; n++) {
            int offset = first + n * NOTICE_SIZE;
            int code = fixed.getInt(offset + NOTICE_KIND_OFFSET);
            AgentNotice.Kind kind = AgentNotice.Kind.ofCode(code);
            if (kind == null) {
                throw damaged(
                        file,
                        "notice " + n + " of kind " + code + " (" + NOTICE_INFO + " to " + NOTICE_FAILURE
                                + " allowed)");
            }
            notices.add(new AgentNotice(
                    kind, StatsStrings.read(fixed, offset + NOTICE_TEXT_OFFSET, NOTICE_SIZE - NOTICE_TEXT_OFFSET)));
        }
        return notices;
    }

    /** The options text the agent was started with: written with the header, it never changes. */
    public OptionsText options() throws IOException {
        return guarded(() -> new OptionsText(
                StatsStrings.read(fixed, trailerOffset(header.capacity), OPTIONS_TEXT_SIZE),
                fixed.getInt(OPTIONS_LENGTH_OFFSET),
                fixed.getInt(OPTIONS_CRC_OFFSET)));
    }

    private StatsClosing readClosing() throws IOException {
        long closed = (long) LONGS.getAcquire(fixed, CLOSED_OFFSET);
        StatsClosing closing = StatsClosing.of(closed);
        if (closing == null) {
            throw damaged(file, "closed field " + closed + " (0, 1 or 2 allowed)");
        }
        return closing;
    }

    private long heartbeat() throws IOException {
        long heartbeat = (long) LONGS.getAcquire(fixed, HEARTBEAT_OFFSET);
        if (heartbeat < 0) {
            throw damaged(file, "heartbeat " + heartbeat);
        }
        return heartbeat;
    }

    /**
     * The slot at {@code offset} of {@code buffer} with {@code events} columns, copied under its seqlock and
     * checked; null when it is free. Its state is checked on every look: the writer only ever writes states that
     * fit the slot's place ({@code inUse} or free; the aggregate never free), even mid-update, so another one is
     * damage, however odd the sequence. The copy under the seqlock is one bulk copy of the slot's bytes, decoded
     * once it is known to be consistent: the shorter the window, the sooner a reader gets through between two
     * updates.
     */
    private ThreadSample readSlot(ByteBuffer buffer, int offset, String slot, int inUse, int events, long deadline)
            throws IOException {
        int length = COUNTERS_OFFSET + events * COUNTER_SIZE;
        boolean aggregate = inUse == STATE_AGGREGATE;
        for (int odd = 0; ; ) {
            long before = (long) LONGS.getAcquire(buffer, offset + SEQUENCE_OFFSET);
            int state = buffer.getInt(offset + STATE_OFFSET);
            if (state != inUse && (state != STATE_FREE || aggregate)) {
                throw damaged(
                        file,
                        slot + " has state " + state + " ("
                                + (aggregate
                                        ? "aggregate"
                                        : inUse == STATE_RUNNING
                                                ? "free or running"
                                                : inUse == STATE_FINISHED ? "free or finished" : "free or " + inUse)
                                + " allowed there)");
            }
            if ((before & 1) == 0) {
                if (state != STATE_FREE) {
                    buffer.get(offset, slotCopy, 0, length);
                }
                VarHandle.loadLoadFence(); // the slot was read before the sequence re-check
                if ((long) LONGS.getAcquire(buffer, offset + SEQUENCE_OFFSET) == before) {
                    return state == STATE_FREE ? null : checked(slot, decode(slot, state, events));
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw damaged(
                        file,
                        slot + " stayed mid-update for " + settleNanos / 1_000_000 + " ms"
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
    private ThreadSample decode(String slot, int state, int events) throws IOException {
        String name;
        try {
            name = StatsStrings.readName(slotCopy, NAME_OFFSET, NAME_SIZE);
        } catch (IOException e) {
            throw damaged(file, slot + ": its name field holds no name (" + e.getMessage() + ")");
        }
        ByteBuffer bytes = ByteBuffer.wrap(slotCopy).order(ByteOrder.LITTLE_ENDIAN);
        long[] values = new long[events];
        long[] enabled = new long[events];
        long[] running = new long[events];
        for (int e = 0; e < events; e++) {
            int counter = COUNTERS_OFFSET + e * COUNTER_SIZE;
            values[e] = bytes.getLong(counter);
            enabled[e] = bytes.getLong(counter + 8);
            running[e] = bytes.getLong(counter + 16);
        }
        return new ThreadSample(
                state,
                bytes.getInt(TID_OFFSET),
                bytes.getLong(JAVA_ID_OFFSET),
                bytes.getInt(LAST_CPU_OFFSET),
                bytes.getInt(THREADS_OFFSET),
                bytes.getLong(ENROLLED_OFFSET),
                bytes.getLong(READ_FROM_OFFSET),
                bytes.getLong(READ_TO_OFFSET),
                bytes.getInt(FLAGS_OFFSET),
                name,
                StatsStrings.read(bytes, CPUS_OFFSET, CPUS_SIZE),
                Arrays.copyOfRange(slotCopy, COUNTED_OFFSET, COUNTERS_OFFSET),
                values,
                enabled,
                running);
    }

    private ThreadSample checked(String slot, ThreadSample s) throws IOException {
        if (s.state() == STATE_AGGREGATE) {
            within(file, slot + ": thread count", s.threads(), 0, Integer.MAX_VALUE);
        } else if (s.isVirtualGroup()) {
            // none ended yet while some run, or none runs now
            within(file, slot + ": thread count", s.threads(), 0, Integer.MAX_VALUE);
            within(file, slot + ": tid", s.tid(), 0, 0);
            within(file, slot + ": Java thread id", s.javaId(), 0, 0);
            within(file, slot + ": enrolled", s.enrolledNanos(), 0, 0);
            within(file, slot + ": read from", s.readFromNanos(), 0, s.readToNanos());
            if ((s.flags() & ~FLAG_NAME_CUT) != 0) {
                throw damaged(file, slot + ": flags " + Integer.toHexString(s.flags()) + " (bit 3 allowed)");
            }
        } else {
            within(file, slot + ": thread count", s.threads(), 1, 1);
            within(file, slot + ": tid", s.tid(), 1, MAX_PID);
            within(file, slot + ": Java thread id", s.javaId(), 1, Long.MAX_VALUE);
            within(file, slot + ": enrolled", s.enrolledNanos(), 0, s.readFromNanos());
            within(file, slot + ": read from", s.readFromNanos(), s.enrolledNanos(), s.readToNanos());
            if ((s.flags() & ~KNOWN_FLAGS) != 0 || (s.flags() & PIN_MASK) > PIN_INHERITED) {
                throw damaged(
                        file,
                        slot + ": flags " + Integer.toHexString(s.flags()) + " (bits 0 to 3 allowed," + " pin 0 to 2)");
            }
        }
        within(file, slot + ": last cpu", s.lastCpu(), -1, Integer.MAX_VALUE);
        for (int e = 0; e < s.events(); e++) {
            if (s.raw(e) < 0 || s.enabledNanos(e) < 0 || s.runningNanos(e) < 0) {
                throw damaged(file, slot + ": event " + e + " has a negative count or time");
            }
        }
        return s;
    }

    private <T> T guarded(MappedRead<T> read) throws IOException {
        return guarded(file, channel, fileSize(header.capacity, liveMapped, header.finishedSlots), read);
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
