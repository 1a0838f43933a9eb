package io.perfpin.counter;

import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeBuffer;
import io.perfpin.nativeio.NativeEnrolment;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.PerfIoctl;
import io.perfpin.nativeio.Syscalls;

/**
 * One perf event group in the kernel: a leader and its members, scheduled onto counters together and
 * read in one read(2) with {@link #READ_FORMAT}.
 *
 * <pre>
 * read buffer (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING), u64 each:
 *   offset  0         nr            members in the group, leader included
 *   offset  8         time_enabled  ns the group was enabled
 *   offset 16         time_running  ns it was on counters (below time_enabled when multiplexed)
 *   offset 24 + 8*k   value of member k: the leader first, then the members in the order they joined
 * </pre>
 *
 * The kernel lists members in the order they joined the group, which is the order {@link #add} saw them, so a
 * member's place in the read is its place here: no PERF_FORMAT_ID, and no ioctl per member to learn its id.
 */
final class KernelGroup {
    static final long READ_FORMAT = PerfEventAttr.FORMAT_GROUP
            | PerfEventAttr.FORMAT_TOTAL_TIME_ENABLED
            | PerfEventAttr.FORMAT_TOTAL_TIME_RUNNING;

    private static final int NR_OFFSET = 0;
    private static final int TIME_ENABLED_OFFSET = 8;
    private static final int TIME_RUNNING_OFFSET = 16;
    private static final int VALUES_OFFSET = 24;
    /** Enough for any group of software events, which are never split; a larger group grows its reader's buffer. */
    private static final int FIRST_READ_BUFFER = 1024;
    /**
     * One read buffer per reading thread, not one per group: the sampler reads thousands of groups one after another,
     * and a group opened on a starting thread then allocates nothing for its reads.
     */
    private static final ThreadLocal<NativeBuffer> READ_BUFFERS = new ThreadLocal<>();

    private final Syscalls syscalls;
    /** Which PMU's events may join: {@link PerfEventAttr#TYPE_SOFTWARE}, the core PMU's type, or another PMU's. */
    final int pmu;

    private final int[] fds;
    private final int[] eventIndex;
    private int size;
    /**
     * The C library's slot of a group it opened ({@link NativeEnrolment}), read and closed through it: C closes it
     * when its thread ends, so its descriptors are never this object's to use. -1 for a group opened here.
     */
    private int slot = -1;
    /** The slot's generation as the sampler adopted it: a slot let go of and taken again is another's. */
    private long generation;

    /** A group of at most {@code capacity} members, the first of which is its leader. */
    KernelGroup(Syscalls syscalls, int pmu, int capacity) {
        this.syscalls = syscalls;
        this.pmu = pmu;
        this.fds = new int[capacity];
        this.eventIndex = new int[capacity];
    }

    /**
     * The group the C library opened in {@code slot} for events 0 to {@code members - 1}, in that order. Its
     * descriptors are counted in the budget by C, not by {@link #size()}.
     */
    static KernelGroup inSlot(Syscalls syscalls, int pmu, int members, int slot, long generation) {
        KernelGroup group = new KernelGroup(syscalls, pmu, members);
        for (int i = 0; i < members; i++) {
            group.add(-1, i);
        }
        group.slot = slot;
        group.generation = generation;
        return group;
    }

    int leaderFd() {
        return size == 0 ? -1 : fds[0];
    }

    /** The descriptors it holds in the budget: none of a slot's, which C takes and gives back. */
    int size() {
        return slot >= 0 ? 0 : size;
    }

    /** The highest descriptor it holds, or -1: a slot's are C's. */
    int highestDescriptor() {
        int highest = -1;
        for (int i = 0; i < size; i++) {
            highest = Math.max(highest, fds[i]);
        }
        return highest;
    }

    /** Adds an opened fd for the event at {@code index} of the counter group, after those added before. */
    void add(int fd, int index) {
        fds[size] = fd;
        eventIndex[size] = index;
        size++;
    }

    int ioctl(long request) {
        if (slot >= 0) {
            return -Errno.EBADF; // a slot's thread is never let go of while it runs
        }
        return syscalls.ioctl(leaderFd(), request, PerfIoctl.FLAG_GROUP);
    }

    /** Reads every member into {@code into} at its event index; returns 0 or -errno. */
    int readInto(CounterSnapshot into) {
        int bytes = VALUES_OFFSET + Long.BYTES * size;
        NativeBuffer buffer = readBuffer(bytes);
        long n = slot >= 0
                ? NativeEnrolment.read(slot, generation, buffer.address(), bytes)
                : syscalls.read(leaderFd(), buffer.address(), bytes);
        if (n < 0) {
            return (int) n;
        }
        long members = Math.min(buffer.getLong(NR_OFFSET), size);
        long enabled = buffer.getLong(TIME_ENABLED_OFFSET);
        long running = buffer.getLong(TIME_RUNNING_OFFSET);
        for (int k = 0; k < members; k++) {
            into.set(eventIndex[k], buffer.getLong(VALUES_OFFSET + Long.BYTES * k), enabled, running);
        }
        return 0;
    }

    private NativeBuffer readBuffer(int bytes) {
        NativeBuffer buffer = READ_BUFFERS.get();
        if (buffer == null || buffer.size() < bytes) {
            buffer = NativeBuffer.allocate(syscalls, Math.max(bytes, FIRST_READ_BUFFER));
            READ_BUFFERS.set(buffer);
        }
        return buffer;
    }

    void close() {
        if (slot >= 0) {
            if (size > 0) {
                NativeEnrolment.release(slot, generation);
            }
            size = 0;
            return;
        }
        for (int i = size - 1; i >= 0; i--) {
            syscalls.close(fds[i]);
        }
        size = 0;
    }
}
