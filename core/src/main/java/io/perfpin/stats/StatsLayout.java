package io.perfpin.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.regex.Pattern;

/**
 * The binary layout of a per-JVM stats file, in the spirit of Aeron's CnC file and hsperfdata: one writer
 * (the agent's sampler thread) publishes, any number of read-only observers (the CLI) map it and read.
 * All integers are little-endian; every u64 is 8-byte aligned, so it is read and written atomically. Times in
 * nanoseconds are the agent's {@code CLOCK_MONOTONIC} ({@code System.nanoTime()} on Linux), which every process
 * of the machine shares: a viewer's windows are the agent's, never its own clock's.
 *
 * <pre>
 * Header, {@link #EVENT_NAMES_OFFSET} bytes, then the event tables:
 *   0   u32  magic                 'PPST' ({@link #MAGIC})
 *   4   u32  layout version        written LAST, with release semantics: 0 means "not ready yet"
 *   8   u64  pid
 *  16   u64  start time            epoch milliseconds
 *  24   u64  heartbeat             epoch milliseconds of the sampler's last tick (release)
 *  32   u64  interval              nanoseconds between samples
 *  40   u32  event count           E, grows as threads bring new events (release; its names come first)
 *  44   u32  live slot count       L, the live slots the file has now: it grows, by doubling, as threads need
 *                                  them (release, once the file has grown and its new slots are free)
 *  48   u32  finished ring size    R
 *  52   u32  slot size             bytes, {@link #slotSize(int)}
 *  56   u64  finished total        threads finished so far (release); ring slot = (n - 1) % R
 *  64   u64  closed                why the writer closed the file ({@link StatsClosing}, since version 10): 0
 *                                  while it writes, 1 as the JVM exits (its shutdown hook), 2 while the JVM
 *                                  runs on (the agent detached or stopped); the last write (release)
 *  72   u32  event capacity        C: the most events the file can name
 *  76   u32  live slot capacity    M: the most live slots the file may grow to
 *  80   u64  threads not counted   threads the agent enrolled without opening any counter, for want of file
 *                                  descriptors: its budget (fds=) was spent, or the process or the system
 *                                  was out of them (release; only grows)
 *  88   u64  descriptor budget     the file descriptors the agent may hold; written once, before the first
 *                                  thread is not counted
 *  96   u64  notices posted        N, 0 to {@link #NOTICE_CAPACITY}: the notices in use (release; its notices
 *                                  are written first; only grows)
 * 104   u32  options length        bytes of the options text the agent was started with, whole
 * 108   u32  options CRC-32C       of the whole options text: a reader compares another text with it
 * 112   u64  samples published     the sampler's ticks so far (release, after every slot the tick wrote): a
 *                                  viewer shows a window when it grows, so each agent sample once
 * 120   u64  last sample time      nanoseconds, when the last tick began
 * 128   {@link #PMU_SIZE} bytes     the simulated PMU that makes the hardware counts (since version 9), ASCII,
 *                                  zero-padded: {@code simulated skylake}, in tests only; empty for the kernel's
 * 192   u64  pid namespace         the writer's, the inode of its {@code /proc/self/ns/pid} (since version 12);
 *                                  0 when it could not tell: with the pid, which process wrote the file
 * 200   u64  process start         the writer's, field 22 of its {@code /proc/self/stat}: clock ticks from boot
 *                                  to its start, in its time namespace (since version 12); 0 when it could not
 *                                  tell: a later process with the same pid has another
 * 208   C x {@link #EVENT_NAME_SIZE} bytes: event names, UTF-8, zero-padded; the first E are in use
 *  ...  C x {@link #EVENT_REASON_SIZE} bytes: per event, why the kernel refused it (UTF-8, zero-padded,
 *                                  truncated; written once, before the heartbeat that follows); empty when
 *                                  no thread was refused it
 *  ...  C x {@link #EVENT_SOURCE_SIZE} bytes: per event, where its values come from when not from
 *                                  perf_event_open (UTF-8, zero-padded; written once, before the heartbeat
 *                                  that follows): {@code proc} for the scheduler's own count in
 *                                  /proc/&lt;pid&gt;/task/&lt;tid&gt;, read where the kernel does not permit the
 *                                  event; empty for perf_event_open
 *
 * Then the trailer, {@link #TRAILER_SIZE} bytes:
 *   0   {@link #OPTIONS_TEXT_SIZE} bytes  the options text, UTF-8, zero-padded, cut at a character boundary
 *                                  when longer (its length and CRC in the header are the whole text's)
 *  ...  {@link #NOTICE_CAPACITY} x {@link #NOTICE_SIZE} bytes: what the agent told its user, in the order it
 *                                  said it, the first N in use, each written once before N counts it:
 *         0  u32  kind             what sort of notice it is, so that a reader never tells notices apart by
 *                                  their text ({@link AgentNotice.Kind}): {@link #NOTICE_INFO};
 *                                  {@link #NOTICE_REFUSED}, something the options asked (a pin, a thread
 *                                  counted) that the agent could not do; {@link #NOTICE_NOT_COUNTED}, an event
 *                                  this machine does not count (since version 6; before, info); or
 *                                  {@link #NOTICE_FAILURE}, a step that failed with an exception, the agent
 *                                  going on without it (since version 6; before, refused)
 *         4  ...  text             UTF-8, zero-padded, cut at a character boundary
 *
 * Then the aggregate slot, {@link #VIRTUAL_GROUPS} x 4 virtual-group slots (since version 7; 4 since 8), R finished
 * slots, and last the L live slots, each {@link #slotSize(int)} bytes (the live slots come last so that the file
 * grows at its end). Virtual threads have no slot of their own (there may be 100,000 of them): each is in its group,
 * its name with the numeric suffix stripped ({@code vt-17} is in {@code vt}), whose four slots, free until a first
 * member runs or ends, are {@link #STATE_VIRTUAL_GROUP} (the totals of the members that ended summed, threads N those
 * members so far, read to the tick that last added one), then {@link #STATE_VIRTUAL_P50} and
 * {@link #STATE_VIRTUAL_P99} (per event, in its value, the total of a member that ended at that percentile, within
 * 1/32; both times 0; threads N as the first's), then {@link #STATE_VIRTUAL_RUNNING} (since version 8: threads the
 * members running now, and their totals so far summed, each as of its last unmount, read to the tick that last
 * changed them; so that a group's totals slot plus this one never go down from one tick to the next, a member that
 * ended after the walk of the running ones but before its totals reached the first slot stays in this one until they
 * do). Threads may be 0 in all four; tid, Java thread id and enrolled are 0. A group beyond the first
 * {@link #VIRTUAL_GROUPS} is not in the file (its members are in the recording):
 *   0   u64  sequence              odd while the writer updates the slot (seqlock)
 *   8   u32  state                 {@link #STATE_FREE}, {@link #STATE_RUNNING}, {@link #STATE_FINISHED},
 *                                  {@link #STATE_AGGREGATE}, or a virtual group's four
 *  12   u32  tid
 *  16   u64  java thread id
 *  24   i32  last cpu              -1 when unknown; the agent leaves it so, since a viewer reads it from
 *                                  /proc/&lt;pid&gt;/task/&lt;tid&gt;/stat at no cost to the JVM
 *  28   u32  threads               1, or how many finished threads an aggregate slot sums
 *  32   u64  enrolled              nanoseconds, taken before the thread's counters opened: its counts start
 *                                  after it
 *  40   u64  read from             nanoseconds, taken before its counts were read
 *  48   u64  read to               nanoseconds, taken after: the counts were taken between the two, so counts
 *                                  over [A.from, B.to] of two samples A and B never outrun the time (a busy
 *                                  thread's task-clock within it is at most B.to - A.from)
 *  56   u32  flags                 bits 0-1: who set its CPUs ({@link #PIN_NONE}, {@link #PIN_PERFPIN},
 *                                  {@link #PIN_INHERITED}); bit 2 ({@link #FLAG_STILL_RUNNING}): a finished
 *                                  thread still ran when counting stopped (the agent detached, the JVM
 *                                  exited); bit 3 ({@link #FLAG_NAME_CUT}): its name is longer than the field
 *  60   u32  reserved
 *  64   {@link #CPUS_SIZE} bytes    allowed CPUs in Linux list syntax, zero-padded
 * 128   {@link #NAME_SIZE} bytes   thread name (since version 11): u16 big-endian count of bytes, then the name in
 *                                  Java's modified UTF-8 ({@code DataOutput.writeUTF}), zero-padded, so that
 *                                  every name, NUL and lone surrogates included, reads back as it was: whole up
 *                                  to {@value #NAME_SIZE} - 2 bytes, a longer one cut between two characters (and
 *                                  flagged, bit 3); a virtual group's slots flag their group's name so too
 * 1152  32 bytes                  a bit per event column (bit e of byte e / 8): the thread counts that event;
 *                                  clear for one it does not count or the kernel refused it. A thread that has
 *                                  not run since it was enrolled has zero counts, counted
 * 1184  C x 24 bytes               per event: u64 cumulative value, u64 time enabled, u64 time running (ns);
 *                                  all zero for an event the thread does not count
 * </pre>
 *
 * <p>The notices let a viewer say, in its own output, what the agent could not do, where the application's
 * stderr is no place for it. They are the agent's first {@link #NOTICE_CAPACITY} distinct messages; later ones
 * go to the application's stderr only.
 *
 * <p>Events are columns shared by all threads: a thread that counts its own set (an annotation's) fills
 * only its columns, so a reader never needs per-thread event lists.
 *
 * <p>The file starts with {@link #INITIAL_LIVE_SLOTS} live slots (or M when fewer) and doubles them when a thread
 * finds none free, up to M: a JVM whose rules select few threads keeps a small file whatever else it runs. The
 * writer extends the file first, then publishes the new count, so a reader never sees a count the file does not
 * hold; a reader maps the live slots anew when the count has grown.
 *
 * <p>The file lives in the user's directory, where anything the user runs can truncate, replace or scribble on
 * it. The writer ({@link StatsFile}) therefore keeps every value it decides on (slot occupancy, sequences, the
 * aggregate's sums, the finished total, the live slot count) in its own memory and only ever writes the file, and
 * it stops writing when the file shrinks under its mapping or its path names another file. A reader
 * ({@link StatsFileReader}) believes nothing it has not checked, and reports a file that breaks one of these rules
 * as damaged:
 * <ul>
 *   <li>Static header fields, checked when it opens the file, before mapping it: magic and version as above;
 *       pid 1 to {@link #MAX_PID}; start time &gt;= 0; interval {@link #MIN_INTERVAL_NANOS} to
 *       {@link #MAX_INTERVAL_NANOS} (a reader waits one interval between two looks, so this bounds its pace both
 *       ways); event capacity 1 to {@link #MAX_EVENT_CAPACITY}, live slot capacity 1 to {@link #MAX_LIVE_SLOTS},
 *       finished slots 1 to {@link #MAX_FINISHED_SLOTS} (so each mapping is addressed with int offsets); slot
 *       size equal to {@link #slotSize(int)} of the capacity; the PMU empty or {@code simulated } and a model's
 *       name, {@link #PMU_MODEL} (a viewer prints it in its heading); and the file at least
 *       {@link #fileSize(int, int, int)} bytes long for the live slot count (shorter is truncated) and at most
 *       that for the live slot capacity (longer is damaged). The writer refuses to create a file outside these
 *       bounds. The reserved bytes are not checked.</li>
 *   <li>Dynamic header fields, checked on every read: event count 0 to the capacity, never falling; live slot
 *       count 1 to its capacity, never falling; finished total &gt;= 0, never falling; samples published never
 *       falling; closed 0 or 1; heartbeat &gt;= 0; each named event has a name, and no two the same name; notices
 *       posted 0 to {@link #NOTICE_CAPACITY}, never falling, each of a known kind (1 to 4).</li>
 *   <li>Slots: a live slot is free or running, a finished slot free or finished, the aggregate slot the
 *       aggregate; this holds even while the writer is mid-update, so it is checked before waiting on a sequence.
 *       Once the sequence is even and unchanged across the copy: a thread's slot counts 1 thread with a tid 1 to
 *       {@link #MAX_PID} and a Java thread id &gt; 0, its times in order (0 &lt;= enrolled &lt;= read from &lt;=
 *       read to) and only known flags; the aggregate and a virtual group's slots count &gt;= 0 threads, a virtual
 *       group's flags at most bit 3; the last cpu is &gt;= -1; every value, enabled and running time of a named
 *       event is &gt;= 0; the name field holds a name: its count within the field, its bytes modified UTF-8.</li>
 *   <li>A read of the whole file waits at most {@link StatsFileReader#SETTLE_NANOS} in all for odd sequences to
 *       turn even: a slot that does not settle by then (its writer died mid-update, or the bytes are not a
 *       sequence) makes the file damaged.</li>
 *   <li>The file is a regular file. Its size is checked against the header's before every read, and a fault
 *       (SIGBUS) on the mapping is caught: a file truncated under a reader is reported as truncated.</li>
 * </ul>
 */
public final class StatsLayout {
    public static final int MAGIC = 0x54535050; // "PPST" little-endian
    /**
     * 12: the writer's pid namespace and start time in the header, so that a viewer asked for one process never shows
     * another's file (two JVMs of two pid namespaces have the same pid, and a dead JVM's file may name a pid that a
     * live one has now); they move the event tables and everything after them. 11: a thread's name as a count of bytes
     * and modified UTF-8, which keeps a name's NUL and lone surrogates (a version 10 reader would read the count as the
     * name's first bytes), and a virtual group's cut name flagged. 10: why the file was closed, in the closed field (a
     * version 9 reader would call a detached agent's file damaged). 9: the simulated PMU's name in the header, which
     * moves everything after it (a viewer of a version 8 file would label no count as simulated). 8: a fourth slot per
     * virtual group, its running members, which moves the ring and the live slots. 7: the virtual-group slots, between
     * the aggregate and the ring, which move the ring and the live slots. 6: notices of kinds not-counted and failure,
     * which version 5 readers would call damaged.
     */
    public static final int VERSION = 12;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int PID_OFFSET = 8;
    public static final int START_TIME_OFFSET = 16;
    public static final int HEARTBEAT_OFFSET = 24;
    public static final int INTERVAL_OFFSET = 32;
    public static final int EVENT_COUNT_OFFSET = 40;
    public static final int LIVE_SLOTS_OFFSET = 44;
    public static final int FINISHED_SLOTS_OFFSET = 48;
    public static final int SLOT_SIZE_OFFSET = 52;
    public static final int FINISHED_TOTAL_OFFSET = 56;
    public static final int CLOSED_OFFSET = 64;
    public static final int EVENT_CAPACITY_OFFSET = 72;
    public static final int LIVE_CAPACITY_OFFSET = 76;
    public static final int THREADS_NOT_COUNTED_OFFSET = 80;
    public static final int DESCRIPTOR_BUDGET_OFFSET = 88;
    public static final int NOTICES_POSTED_OFFSET = 96;
    public static final int OPTIONS_LENGTH_OFFSET = 104;
    public static final int OPTIONS_CRC_OFFSET = 108;
    public static final int SAMPLES_OFFSET = 112;
    public static final int SAMPLE_TIME_OFFSET = 120;
    public static final int PMU_OFFSET = 128;
    /** A model's name is a word: {@code simulated } and up to 40 more characters fit, with the zero that ends it. */
    public static final int PMU_SIZE = 64;

    public static final int PID_NAMESPACE_OFFSET = PMU_OFFSET + PMU_SIZE;
    public static final int PROCESS_START_OFFSET = PID_NAMESPACE_OFFSET + 8;
    public static final int EVENT_NAMES_OFFSET = PROCESS_START_OFFSET + 8;
    /** What the PMU field may hold besides nothing: a model's name is lower-case letters, digits and dashes. */
    public static final String PMU_MODEL = "simulated [a-z0-9-]{1,40}";

    private static final Pattern PMU_NAME = Pattern.compile(PMU_MODEL);

    public static final int EVENT_NAME_SIZE = 64;
    public static final int EVENT_REASON_SIZE = 192;
    public static final int EVENT_SOURCE_SIZE = 8;

    public static final int SEQUENCE_OFFSET = 0;
    public static final int STATE_OFFSET = 8;
    public static final int TID_OFFSET = 12;
    public static final int JAVA_ID_OFFSET = 16;
    public static final int LAST_CPU_OFFSET = 24;
    public static final int THREADS_OFFSET = 28;
    public static final int ENROLLED_OFFSET = 32;
    public static final int READ_FROM_OFFSET = 40;
    public static final int READ_TO_OFFSET = 48;
    public static final int FLAGS_OFFSET = 56;
    public static final int CPUS_OFFSET = 64;
    public static final int CPUS_SIZE = 64;
    public static final int NAME_OFFSET = 128;
    /**
     * Names of up to 1,022 bytes of modified UTF-8 are kept whole: far beyond what frameworks name their threads (JMH's
     * workers, 70 characters; a 200-character name in the tests), so no two names are cut to one.
     */
    public static final int NAME_SIZE = 1024;

    public static final int COUNTED_OFFSET = NAME_OFFSET + NAME_SIZE;
    public static final int COUNTERS_OFFSET = COUNTED_OFFSET + 32;
    public static final int COUNTER_SIZE = 24;

    public static final int PIN_NONE = 0;
    public static final int PIN_PERFPIN = 1;
    public static final int PIN_INHERITED = 2;
    public static final int PIN_MASK = 3;
    public static final int FLAG_STILL_RUNNING = 4;
    public static final int FLAG_NAME_CUT = 8;
    public static final int KNOWN_FLAGS = PIN_MASK | FLAG_STILL_RUNNING | FLAG_NAME_CUT;

    /** Enough columns for every preset at once, with room for annotations' own events; a bit each in a slot. */
    public static final int MAX_EVENT_CAPACITY = 256;

    public static final int MAX_LIVE_SLOTS = 65_536;
    public static final int MAX_FINISHED_SLOTS = 65_536;
    /** A new file's live slots: a few pages, whatever the JVM runs; it doubles them when a thread needs one. */
    public static final int INITIAL_LIVE_SLOTS = 64;
    /** Linux's PID_MAX_LIMIT: no pid or tid is larger. */
    public static final long MAX_PID = 4_194_304;
    /** perf stat -I has the same floor: a shorter interval costs more than it shows. */
    public static final long MIN_INTERVAL_NANOS = 1_000_000L;

    public static final long MAX_INTERVAL_NANOS = 3_600_000_000_000L;

    /**
     * The agent takes at most 64 Ki characters of options: a text of one-byte characters is kept whole, and the
     * notices after it stay 8-byte aligned.
     */
    public static final int OPTIONS_TEXT_SIZE = 64 * 1024 + 8;

    public static final int NOTICE_CAPACITY = 64;
    public static final int NOTICE_SIZE = 256;
    public static final int NOTICE_KIND_OFFSET = 0;
    public static final int NOTICE_TEXT_OFFSET = 4;
    public static final int TRAILER_SIZE = OPTIONS_TEXT_SIZE + NOTICE_CAPACITY * NOTICE_SIZE;
    public static final int NOTICE_INFO = 1;
    public static final int NOTICE_REFUSED = 2;
    public static final int NOTICE_NOT_COUNTED = 3;
    public static final int NOTICE_FAILURE = 4;

    public static final int STATE_FREE = 0;
    public static final int STATE_RUNNING = 1;
    public static final int STATE_FINISHED = 2;
    public static final int STATE_AGGREGATE = 3;
    /** A group of virtual threads: its members' totals. */
    public static final int STATE_VIRTUAL_GROUP = 4;
    /** A group of virtual threads: per event, the median of a member's totals. */
    public static final int STATE_VIRTUAL_P50 = 5;
    /** A group of virtual threads: per event, the 99th percentile of a member's totals. */
    public static final int STATE_VIRTUAL_P99 = 6;
    /** A group of virtual threads: its members running now, and their totals so far. */
    public static final int STATE_VIRTUAL_RUNNING = 7;

    /**
     * The groups of virtual threads a file shows: enough for the few kinds of task an application names its
     * virtual threads by, few enough that the slots cost about 1 MiB at the largest event capacity.
     */
    public static final int VIRTUAL_GROUPS = 16;
    /** The slots of each group, in this order: its ended members' totals, p50 and p99, its running members'. */
    public static final int VIRTUAL_GROUP_SLOTS = 4;

    /** Ordered access to u64 fields of a mapped buffer: acquire loads and release stores. */
    static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private StatsLayout() {}

    public static int eventReasonsOffset(int eventCapacity) {
        return EVENT_NAMES_OFFSET + eventCapacity * EVENT_NAME_SIZE;
    }

    public static int eventSourcesOffset(int eventCapacity) {
        return eventReasonsOffset(eventCapacity) + eventCapacity * EVENT_REASON_SIZE;
    }

    public static int headerSize(int eventCapacity) {
        return eventSourcesOffset(eventCapacity) + eventCapacity * EVENT_SOURCE_SIZE;
    }

    public static int trailerOffset(int eventCapacity) {
        return headerSize(eventCapacity);
    }

    public static int slotSize(int eventCapacity) {
        return COUNTERS_OFFSET + eventCapacity * COUNTER_SIZE;
    }

    public static int aggregateOffset(int eventCapacity) {
        return trailerOffset(eventCapacity) + TRAILER_SIZE;
    }

    /** Of slot {@code kind} (0 totals, 1 p50, 2 p99, 3 running) of virtual group {@code group} (0 to 15). */
    public static long virtualGroupOffset(int eventCapacity, int group, int kind) {
        return aggregateOffset(eventCapacity)
                + (long) slotSize(eventCapacity) * (1 + VIRTUAL_GROUP_SLOTS * group + kind);
    }

    /** Of finished slot {@code slot}, 0 to R - 1. */
    public static long finishedOffset(int eventCapacity, int slot) {
        return virtualGroupOffset(eventCapacity, VIRTUAL_GROUPS, 0) + (long) slotSize(eventCapacity) * slot;
    }

    /** Where the live slots start: everything before is mapped once, the live slots anew as they grow. */
    public static long liveOffset(int eventCapacity, int finishedSlots) {
        return finishedOffset(eventCapacity, finishedSlots);
    }

    public static long fileSize(int eventCapacity, int liveSlots, int finishedSlots) {
        return liveOffset(eventCapacity, finishedSlots) + (long) slotSize(eventCapacity) * liveSlots;
    }

    /** The live slots a new file starts with, for a file that may hold {@code liveCapacity}. */
    public static int initialLiveSlots(int liveCapacity) {
        return Math.min(INITIAL_LIVE_SLOTS, liveCapacity);
    }

    /**
     * Whether {@code pmu} names a simulated PMU as {@link #PMU_MODEL} says: what a stats file, a recording and their
     * writer check, since a viewer prints it in its heading.
     */
    public static boolean namesSimulatedPmu(String pmu) {
        return PMU_NAME.matcher(pmu).matches();
    }
}
