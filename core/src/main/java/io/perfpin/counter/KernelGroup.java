package io.perfpin.counter;

import io.perfpin.nativeio.NativeBuffer;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.PerfIoctl;
import io.perfpin.nativeio.Syscalls;

import java.util.Arrays;

/**
 * One perf event group in the kernel: a leader and its members, scheduled onto counters together and
 * read in one read(2) with {@link #READ_FORMAT}.
 *
 * <pre>
 * read buffer (PERF_FORMAT_GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING), u64 each:
 *   offset  0   nr            members in the group, leader included
 *   offset  8   time_enabled  ns the group was enabled
 *   offset 16   time_running  ns it was on counters (below time_enabled when multiplexed)
 *   offset 24 + 16*k          value of member k
 *   offset 32 + 16*k          id of member k (PERF_EVENT_IOC_ID), matched to our event index
 * </pre>
 */
final class KernelGroup {
    static final long READ_FORMAT = PerfEventAttr.FORMAT_GROUP
            | PerfEventAttr.FORMAT_ID
            | PerfEventAttr.FORMAT_TOTAL_TIME_ENABLED
            | PerfEventAttr.FORMAT_TOTAL_TIME_RUNNING;
    /** {@code _IOR('$', 7, __u64 *)}: the id the kernel gives a member in group reads. */
    static final long IOC_ID = 0x80082407L;

    private static final int NR_OFFSET = 0;
    private static final int TIME_ENABLED_OFFSET = 8;
    private static final int TIME_RUNNING_OFFSET = 16;
    private static final int MEMBERS_OFFSET = 24;
    private static final int MEMBER_SIZE = 16;
    private static final int HEADER_SIZE = 24;

    private final Syscalls syscalls;
    final String pmu;
    private int[] fds = new int[0];
    private long[] ids = new long[0];
    private int[] eventIndex = new int[0];
    private NativeBuffer readBuffer;

    KernelGroup(Syscalls syscalls, String pmu) {
        this.syscalls = syscalls;
        this.pmu = pmu;
    }

    int leaderFd() {
        return fds.length == 0 ? -1 : fds[0];
    }

    int size() {
        return fds.length;
    }

    /** Adds an opened fd for the event at {@code index} of the counter group; returns 0 or -errno. */
    int add(int fd, int index, NativeBuffer scratch) {
        int rc = syscalls.ioctl(fd, IOC_ID, scratch.address());
        if (rc < 0) {
            return rc;
        }
        int n = fds.length;
        fds = Arrays.copyOf(fds, n + 1);
        ids = Arrays.copyOf(ids, n + 1);
        eventIndex = Arrays.copyOf(eventIndex, n + 1);
        fds[n] = fd;
        ids[n] = scratch.getLong(0);
        eventIndex[n] = index;
        return 0;
    }

    /** Sized once all members are in: reads then allocate nothing. */
    void seal() {
        readBuffer = NativeBuffer.allocate(syscalls, HEADER_SIZE + MEMBER_SIZE * fds.length);
    }

    int ioctl(long request) {
        return syscalls.ioctl(leaderFd(), request, PerfIoctl.FLAG_GROUP);
    }

    /** Reads every member into {@code into} at its event index; returns 0 or -errno. */
    int readInto(CounterSnapshot into) {
        long n = syscalls.read(leaderFd(), readBuffer.address(), readBuffer.size());
        if (n < 0) {
            return (int) n;
        }
        long members = readBuffer.getLong(NR_OFFSET);
        long enabled = readBuffer.getLong(TIME_ENABLED_OFFSET);
        long running = readBuffer.getLong(TIME_RUNNING_OFFSET);
        for (int k = 0; k < members; k++) {
            int offset = MEMBERS_OFFSET + MEMBER_SIZE * k;
            long id = readBuffer.getLong(offset + 8);
            for (int m = 0; m < ids.length; m++) {
                if (ids[m] == id) {
                    into.set(eventIndex[m], readBuffer.getLong(offset), enabled, running);
                    break;
                }
            }
        }
        return 0;
    }

    void close() {
        for (int i = fds.length - 1; i >= 0; i--) {
            syscalls.close(fds[i]);
        }
        fds = new int[0];
    }
}
