package io.perfpin.nativeio;

/**
 * Counts of virtual threads (JDK 21 and later), made by perfpin's C library on the JVM's own mount and unmount
 * events: each carrier thread gets a counter group of its own at its first mount, read when a selected virtual thread
 * mounts and unmounts, the difference added to the virtual thread's totals. Java runs twice per virtual thread: at
 * its first mount {@code hooks.virtualSelected(Thread)} (returning int) says whether it is counted, and in which
 * group ({@link #NOT_COUNTED}, or the group's index, which {@link #running} sums it in), which is kept; at its end
 * {@code hooks.virtualEnded(Thread, long[] totals, int mounts, int[] carriers, boolean stillRunning)} gets its
 * totals (at {@link #stop}, on the stopping thread, for one still running then): per event {@code raw, enabledNanos,
 * runningNanos} ({@link #RAW}, {@link #ENABLED}, {@link #RUNNING}), then a mask of the events some carrier counted;
 * {@code carriers} are the TIDs of the first {@value #MAX_CARRIERS} carriers it ran on. Only the JNI backend has it.
 */
public final class VirtualThreadCounting {
    public static final int RAW = 0;
    public static final int ENABLED = 1;
    public static final int RUNNING = 2;
    /** The events of one group, as the C library keeps them. */
    public static final int MAX_EVENTS = 16;

    public static final int MAX_CARRIERS = 16;
    /** What {@code virtualSelected} returns for a virtual thread not counted; any other value is its group. */
    public static final int NOT_COUNTED = -1;
    /** The groups {@link #running} sums: a counted virtual thread of a group at or past it is summed in none. */
    public static final int MAX_RUNNING_GROUPS = 16;

    /** How long {@link #stop} waits for the callbacks under way, in all. */
    public static final int STOP_WAIT_MILLIS = 2000;

    private VirtualThreadCounting() {}

    /**
     * Starts counting. Nothing is counted for a virtual thread already mounted until it next mounts.
     *
     * @param attrs  {@code count} attributes of {@link PerfEventAttr#SIZE} bytes, with read format group and both
     *               times, not disabled; copied
     * @param groups how many carriers may open a group: a carrier beyond them is not counted (its file descriptors
     *               are the caller's to have reserved, {@code groups * count})
     * @param states how many counted virtual threads may be alive at once: the library keeps a state of some hundred
     *               bytes for each; one selected beyond them is not counted ({@link #refused})
     * @return 0, or -errno: -EOPNOTSUPP where the JVM has no virtual threads (JDK 17), -ENOSYS without the JNI
     *         backend or the JVM's mount events, -EBUSY when already started, -EINVAL for a hooks class without
     *         those methods or a count out of 1..{@value #MAX_EVENTS}
     */
    public static int start(Syscalls syscalls, Class<?> hooks, long attrs, int count, int groups, int states) {
        if (hooks == null) {
            throw new IllegalArgumentException("no hooks");
        }
        return syscalls.backend() == Backend.JNI
                ? JniSyscalls.virtualThreads0(hooks, attrs, count, groups, states)
                : -Errno.ENOSYS;
    }

    /** How many selected virtual threads were not counted, {@code states} alive already, since the last call. */
    public static int refused(Syscalls syscalls) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.virtualRefused0() : 0;
    }

    /**
     * Stops the events, waits for the callbacks under way ({@value #STOP_WAIT_MILLIS} ms in all), closes every
     * carrier's descriptors, and hands each selected virtual thread still running its totals so far, as at its end
     * ({@code stillRunning} true), on this thread, before it returns. A carrier whose callback is still under way at
     * the deadline (the hook that selects a virtual thread matches its name with the user's pattern, which may take
     * long) is left: it closes its descriptors as that callback returns.
     *
     * @param left gets how many carriers were left so ({@code left[0]}), then their TIDs, as many as it holds
     * @return how many carriers found no room for their group (virtual threads were not counted on them), or -errno
     */
    public static int stop(Syscalls syscalls, int[] left) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.virtualStop0(left) : -Errno.ENOSYS;
    }

    /**
     * On a virtual thread, while counting: its totals so far, its current mount included, as {@code virtualEnded}
     * gets them, in {@code totals} ({@code 3 * events + 1} long). One not followed yet is from now on, without a
     * final record: a {@code @Counted} method on it counts from its entry.
     *
     * @return 0, or -errno: -ENOSYS when not counting, -EAGAIN while stopping
     */
    public static int read(Syscalls syscalls, long[] totals) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.virtualRead0(totals) : -Errno.ENOSYS;
    }

    /**
     * While counting, per group ({@code virtualSelected}'s answer), the counted virtual threads running now (not
     * ended) and their totals so far summed, each as of its last unmount: a walk of what the library keeps, under
     * its lock, O(virtual threads counted), that allocates nothing. Into {@code sums}, per group {@link #groupStride}
     * long: the count of members, the totals as {@code virtualEnded} gets them (3 per event, then the
     * mask of events counted), for as many groups as it holds, {@value #MAX_RUNNING_GROUPS} at most.
     *
     * @return how many groups it wrote, or -errno: -ENOSYS when not counting
     */
    public static int running(Syscalls syscalls, long[] sums) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.virtualRunning0(sums) : -Errno.ENOSYS;
    }

    /** The longs of one group in {@link #running}'s sums, for {@code events} events. */
    public static int groupStride(int events) {
        return 3 * events + 2;
    }

    /** The offset of {@code event}'s {@code what} ({@link #RAW}, ...) in the totals. */
    public static int at(int event, int what) {
        return 3 * event + what;
    }

    /** Whether some carrier counted {@code event} for the virtual thread. */
    public static boolean counted(long[] totals, int events, int event) {
        return (totals[3 * events] & (1L << event)) != 0;
    }
}
