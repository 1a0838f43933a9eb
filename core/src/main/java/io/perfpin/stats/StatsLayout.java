package io.perfpin.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The binary layout of a per-JVM stats file, in the spirit of Aeron's CnC file and hsperfdata: one writer
 * (the agent's sampler thread) publishes, any number of read-only observers (the CLI) map it and read.
 * All integers are little-endian; every u64 is 8-byte aligned, so it is read and written atomically.
 *
 * <pre>
 * Header, {@link #HEADER_SIZE} bytes:
 *   0   u32  magic                 'PPST' ({@link #MAGIC})
 *   4   u32  layout version        written LAST, with release semantics: 0 means "not ready yet"
 *   8   u64  pid
 *  16   u64  start time            epoch milliseconds
 *  24   u64  heartbeat             epoch milliseconds of the sampler's last tick (release)
 *  32   u64  interval              nanoseconds between samples
 *  40   u32  event count           E, grows as threads bring new events (release; its names come first)
 *  44   u32  live slot count       L
 *  48   u32  finished ring size    R
 *  52   u32  slot size             bytes, {@link #slotSize(int)}
 *  56   u64  finished total        threads finished so far (release); ring slot = (n - 1) % R
 *  64   u64  closed                1 once the writer closed the file (the JVM exited or the agent detached)
 *  72   u32  event capacity        C: the most events the file can name
 *  76   u32  reserved
 *  80   u64  threads not counted   threads the agent enrolled without opening any counter, for want of file
 *                                  descriptors: its budget (fds=) was spent, or the process or the system
 *                                  was out of them (release; only grows); 0 in files of agents before it
 *  88   u64  descriptor budget     the file descriptors the agent may hold; written once, before the first
 *                                  thread is not counted
 *  96   u64  notices posted        N, 0 to {@link #NOTICE_CAPACITY}: the notices in use (release; its notices
 *                                  are written first; only grows)
 * 104   u32  options length        bytes of the options text the agent was started with, whole
 * 108   u32  options CRC-32C       of the whole options text: a reader compares another text with it
 * 112   ...  reserved
 * 128   C x {@link #EVENT_NAME_SIZE} bytes: event names, UTF-8, zero-padded; the first E are in use
 *  ...  C x {@link #EVENT_REASON_SIZE} bytes: per event, why the kernel refused it (UTF-8, zero-padded,
 *                                  truncated; written once, before the heartbeat that follows); empty when
 *                                  no thread was refused it
 *  ...  C x {@link #EVENT_SOURCE_SIZE} bytes: per event, where its values come from when not from
 *                                  perf_event_open (UTF-8, zero-padded; written once, before the heartbeat
 *                                  that follows): {@code proc} for the scheduler's own count in
 *                                  /proc/&lt;pid&gt;/task/&lt;tid&gt;, read where the kernel does not permit the
 *                                  event; empty for perf_event_open
 *
 * Then L live slots, R finished slots, and one aggregate slot, each {@link #slotSize(int)} bytes:
 *   0   u64  sequence              odd while the writer updates the slot (seqlock)
 *   8   u32  state                 {@link #STATE_FREE}, {@link #STATE_RUNNING}, {@link #STATE_FINISHED},
 *                                  {@link #STATE_AGGREGATE}
 *  12   u32  tid
 *  16   u64  java thread id
 *  24   i32  last cpu              -1 when unknown; the agent leaves it so, since a viewer reads it from
 *                                  /proc/<pid>/task/<tid>/stat at no cost to the JVM
 *  28   u32  threads               1, or how many finished threads an aggregate slot sums
 *  32   {@link #NAME_SIZE} bytes   thread name, UTF-8, zero-padded (truncated)
 *  96   {@link #CPUS_SIZE} bytes   allowed CPUs in Linux list syntax, zero-padded
 * 160   C x 24 bytes               per event: u64 cumulative value, u64 time enabled, u64 time running (ns);
 *                                  all zero for an event the thread does not count
 *
 * Then the trailer, {@link #TRAILER_SIZE} bytes, the last of the file:
 *   0   {@link #OPTIONS_TEXT_SIZE} bytes  the options text, UTF-8, zero-padded, cut at a character boundary
 *                                  when longer (its length and CRC in the header are the whole text's)
 *  ...  {@link #NOTICE_CAPACITY} x {@link #NOTICE_SIZE} bytes: what the agent told its user, in the order it
 *                                  said it, the first N in use, each written once before N counts it:
 *         0  u32  kind             {@link #NOTICE_INFO}, or {@link #NOTICE_REFUSED}: something the options asked
 *                                  (a pin, a thread counted) that the agent could not do
 *         4  ...  text             UTF-8, zero-padded, cut at a character boundary
 * </pre>
 *
 * <p>The notices let a viewer say, in its own output, what the agent could not do, where the application's
 * stderr is no place for it. They are the agent's first {@link #NOTICE_CAPACITY} distinct messages; later ones
 * go to the application's stderr only.
 *
 * <p>Events are columns shared by all threads: a thread that counts its own set (an annotation's) fills
 * only its columns, so a reader never needs per-thread event lists.
 *
 * <p>The file lives in the user's directory, where anything the user runs can truncate, replace or scribble on
 * it. The writer ({@link StatsFile}) therefore keeps every value it decides on (slot occupancy, sequences, the
 * aggregate's sums, the finished total) in its own memory and only ever writes the file, and it stops writing
 * when the file shrinks under its mapping or its path names another file. A reader ({@link StatsFileReader})
 * believes nothing it has not checked, and reports a file that breaks one of these rules as damaged:
 * <ul>
 *   <li>Static header fields, checked when it opens the file, before mapping it: magic and version as above;
 *       pid 1 to {@link #MAX_PID}; start time &gt;= 0; interval {@link #MIN_INTERVAL_NANOS} to
 *       {@link #MAX_INTERVAL_NANOS} (a reader waits one interval between two looks, so this bounds its pace both
 *       ways); event capacity 1 to {@link #MAX_EVENT_CAPACITY}, live slots 1 to {@link #MAX_LIVE_SLOTS},
 *       finished slots 1 to {@link #MAX_FINISHED_SLOTS} (so the largest file, about 830 MB, is addressed with int
 *       offsets); slot size equal to {@link #slotSize(int)} of the capacity; and the file exactly
 *       {@link #fileSize(int, int, int)} bytes long: shorter is truncated, longer is damaged. The writer refuses
 *       to create a file outside these bounds. The reserved bytes are not checked.</li>
 *   <li>Dynamic header fields, checked on every read: event count 0 to the capacity, never falling; finished
 *       total &gt;= 0, never falling; closed 0 or 1; heartbeat &gt;= 0; each named event has a name, and no two
 *       the same name; notices posted 0 to {@link #NOTICE_CAPACITY}, never falling, each of a known kind.</li>
 *   <li>Slots: a live slot is free or running, a finished slot free or finished, the last slot the aggregate;
 *       this holds even while the writer is mid-update, so it is checked before waiting on a sequence. Once the
 *       sequence is even and unchanged across the copy: a thread's slot counts 1 thread with a tid 1 to
 *       {@link #MAX_PID} and a Java thread id &gt; 0, the aggregate counts &gt;= 0 threads; the last cpu is
 *       &gt;= -1; every value, enabled and running time of a named event is &gt;= 0.</li>
 *   <li>A read of the whole file waits at most {@link StatsFileReader#SETTLE_NANOS} in all for odd sequences to
 *       turn even: a slot that does not settle by then (its writer died mid-update, or the bytes are not a
 *       sequence) makes the file damaged.</li>
 *   <li>The file is a regular file. Its size is checked against the header's before every read, and a fault
 *       (SIGBUS) on the mapping is caught: a file truncated under a reader is reported as truncated.</li>
 * </ul>
 */
public final class StatsLayout {
    public static final int MAGIC = 0x54535050; // "PPST" little-endian
    public static final int VERSION = 4;

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
    public static final int THREADS_NOT_COUNTED_OFFSET = 80;
    public static final int DESCRIPTOR_BUDGET_OFFSET = 88;
    public static final int NOTICES_POSTED_OFFSET = 96;
    public static final int OPTIONS_LENGTH_OFFSET = 104;
    public static final int OPTIONS_CRC_OFFSET = 108;
    public static final int EVENT_NAMES_OFFSET = 128;
    public static final int EVENT_NAME_SIZE = 64;
    public static final int EVENT_REASON_SIZE = 192;
    public static final int EVENT_SOURCE_SIZE = 8;

    public static final int SEQUENCE_OFFSET = 0;
    public static final int STATE_OFFSET = 8;
    public static final int TID_OFFSET = 12;
    public static final int JAVA_ID_OFFSET = 16;
    public static final int LAST_CPU_OFFSET = 24;
    public static final int THREADS_OFFSET = 28;
    public static final int NAME_OFFSET = 32;
    public static final int NAME_SIZE = 64;
    public static final int CPUS_OFFSET = 96;
    public static final int CPUS_SIZE = 64;
    public static final int COUNTERS_OFFSET = 160;
    public static final int COUNTER_SIZE = 24;

    /** Enough columns for every preset at once, with room for annotations' own events. */
    public static final int MAX_EVENT_CAPACITY = 256;
    public static final int MAX_LIVE_SLOTS = 65_536;
    public static final int MAX_FINISHED_SLOTS = 65_536;
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

    public static final int STATE_FREE = 0;
    public static final int STATE_RUNNING = 1;
    public static final int STATE_FINISHED = 2;
    public static final int STATE_AGGREGATE = 3;

    /** Ordered access to u64 fields of a mapped buffer: acquire loads and release stores. */
    static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private StatsLayout() {
    }

    public static int eventReasonsOffset(int eventCapacity) {
        return EVENT_NAMES_OFFSET + eventCapacity * EVENT_NAME_SIZE;
    }

    public static int eventSourcesOffset(int eventCapacity) {
        return eventReasonsOffset(eventCapacity) + eventCapacity * EVENT_REASON_SIZE;
    }

    public static int headerSize(int eventCapacity) {
        return eventSourcesOffset(eventCapacity) + eventCapacity * EVENT_SOURCE_SIZE;
    }

    public static int slotSize(int eventCapacity) {
        return COUNTERS_OFFSET + eventCapacity * COUNTER_SIZE;
    }

    public static long fileSize(int eventCapacity, int liveSlots, int finishedSlots) {
        return trailerOffset(eventCapacity, liveSlots, finishedSlots) + TRAILER_SIZE;
    }

    public static long trailerOffset(int eventCapacity, int liveSlots, int finishedSlots) {
        return headerSize(eventCapacity) + (long) slotSize(eventCapacity) * (liveSlots + finishedSlots + 1);
    }
}
