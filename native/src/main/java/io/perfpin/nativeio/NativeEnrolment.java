package io.perfpin.nativeio;

import java.nio.ByteBuffer;

/**
 * Enrolment without Java on the starting thread (the C library's {@code nativeenrol.c}): with the JNI backend and
 * the thread events on ({@link ThreadLifecycleEvents}), the JVM's ThreadStart opens a thread's counters in C, on
 * the thread itself, from attributes encoded once, when the rules' decision for its name says so. The decision is
 * asked of {@code hooks.decide(Thread)} once per name with its numeric suffix stripped, when the answer says it
 * holds for every such name ({@link #CACHEABLE}); a thread that C does not deal with goes to the hooks'
 * {@code runStarting} and {@code runEnded} as before. The sampler {@link #adopt}s the threads C enrolled, reads them
 * through their slot ({@link #read}), and lets go of a slot once done with it ({@link #release}). Each thread's
 * group takes its descriptors from the budget word that the caller shares, and gives them back as it closes.
 */
public final class NativeEnrolment {
    /** A decision: the thread is neither counted nor pinned, and Java hears nothing of it. */
    public static final int SKIP = 0;
    /** A decision: C counts the thread with the events given to {@link #start}. */
    public static final int COUNT = 1;
    /** A decision: the hooks' runStarting and runEnded deal with the thread, as without this. */
    public static final int JAVA = 2;
    /** Added to a decision that holds for every name that differs from this one only in its numeric suffix. */
    public static final int CACHEABLE = 4;

    /** A slot's state as {@link #adopt} gives it: counted (its group open, or closed as its thread ended). */
    public static final int LIVE = 2;

    public static final int READING = 3;
    public static final int ENDING = 4;
    public static final int ENDED = 5;
    /**
     * Not counted for want of descriptors: its error is 0 for the budget, else the kernel's errno << 8 | the index
     * of the event it refused.
     */
    public static final int NOT_COUNTED = 6;
    /** The kernel refused an event: its error is errno << 8 | the event's index. */
    public static final int FAILED = 7;
    /**
     * Ints of {@link #adopt}'s {@code info} per thread: slot, TID, state, error, the System.nanoTime before its group
     * opened, high and low 32 bits, and the slot's generation, high and low 32 bits, for {@link #read} and
     * {@link #release}.
     */
    public static final int INFO = 8;
    /** The most events C opens for a thread, one group. */
    public static final int MAX_EVENTS = 16;

    private NativeEnrolment() {}

    /**
     * Starts counting in C the threads that {@code hooks.decide} says to.
     *
     * @param attrs  the address of each event's encoded {@code perf_event_attr}: the group's leader (disabled),
     *               then its members; the memory must stay for the JVM's life, C copies it
     * @param held   8 aligned bytes of a direct buffer: how many descriptors are held, a long that C changes
     *               atomically; kept by C for good
     * @param budget how many {@code held} may reach
     * @param slots  how many threads C may count at once, beyond which they go to the hooks (only the first start
     *               of a JVM sets it)
     * @return 0, or -errno: -ENOSYS without the JNI backend or the hooks' decide method, -EBUSY while a thread whose
     *         start the last {@link #stop} left in flight, past its deadline, is still being enrolled
     */
    public static int start(Syscalls syscalls, Class<?> hooks, long[] attrs, ByteBuffer held, long budget, int slots) {
        return syscalls.backend() == Backend.JNI
                ? JniSyscalls.enrolStart0(hooks, attrs, held, budget, slots)
                : -Errno.ENOSYS;
    }

    /** How long {@link #stop} waits for the enrolments in flight: the C library's IN_FLIGHT_NANOS. */
    public static final int STOP_WAIT_SECONDS = 10;

    /**
     * Enrols no more threads in C: 0 once the ThreadStart callbacks in flight are done; else, after
     * {@value #STOP_WAIT_SECONDS} s, how many
     * are still in flight, each of which closes the counters it opens itself once the sampler's {@link #adopt} calls
     * from now on took in the last threads enrolled; -ENOSYS without the JNI backend.
     */
    public static int stop(Syscalls syscalls) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.enrolStop0() : -Errno.ENOSYS;
    }

    /**
     * Whether C enrolled the calling thread as it started, and its slot is still held: the sampler has taken it in,
     * or will on its next tick. Only with the JNI backend.
     */
    public static boolean enrolledCurrentThread() {
        return JniSyscalls.enrolEnrolled0();
    }

    /** From now on, every thread's end is reported to the hooks' runEnded, those enrolled in C too. */
    public static void reportEveryEnd(Syscalls syscalls) {
        if (syscalls.backend() == Backend.JNI) {
            JniSyscalls.enrolEndCalls0();
        }
    }

    /**
     * The threads enrolled in C since the last call, up to {@code threads.length}: {@code info} holds
     * {@link #INFO} ints for each. Those that did not fit wait for the next call.
     */
    public static int adopt(Thread[] threads, int[] info) {
        return JniSyscalls.enrolAdopt0(threads, info);
    }

    /**
     * Reads a slot's group (read_format group, time enabled and running) into {@code bytes} at {@code address}: from
     * the kernel while its thread runs, as its thread left it once it ended. Bytes read, or -errno: -EBADF once the
     * slot is no longer of {@code generation}, as {@link #adopt} gave it.
     */
    public static long read(int slot, long generation, long address, int bytes) {
        return JniSyscalls.enrolRead0(slot, generation, address, bytes);
    }

    /**
     * Closes the slot's group if its thread still runs, and frees the slot; nothing when the slot is no longer of
     * {@code generation}, as {@link #adopt} gave it: it was let go of already, and may hold another thread's group.
     */
    public static void release(int slot, long generation) {
        JniSyscalls.enrolRelease0(slot, generation);
    }

    /**
     * The first thread enrolled in C from now on whose counters take a descriptor numbered {@code mark} or more
     * unparks {@code sampler}, once: the descriptor table's next look ({@code io.perfpin.counter.DescriptorTable}).
     * The first call of an enrolment names its sampler for good; nothing once enrolment is stopped.
     *
     * @return 0, or -errno: -ENOSYS where C cannot reach {@code LockSupport.unpark}
     */
    public static int tableMark(int mark, Thread sampler) {
        return JniSyscalls.enrolTableMark0(mark, sampler);
    }

    /** The descriptor of a thread C enrolled that reached the {@link #tableMark} since the last call, or -1. */
    public static int tableReached() {
        return JniSyscalls.enrolTableReached0();
    }
}
