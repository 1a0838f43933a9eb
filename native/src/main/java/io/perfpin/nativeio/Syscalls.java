package io.perfpin.nativeio;

import java.nio.ByteBuffer;

/**
 * The Linux system calls perfpin needs, one contract for every backend ({@link Backend}).
 *
 * <p>Every call returns a non-negative result or {@code -errno} (see {@link Errno}); none throws for a
 * failed system call and none allocates on the Java heap (jffi and JNA: once the calling thread has made
 * its first call), so the read path stays allocation-free.
 * Memory is passed by address: obtain buffers from {@link NativeBuffer#allocate(Syscalls, int)}.
 */
public interface Syscalls {

    Backend backend();

    /**
     * The simulated PMU that answers hardware events in place of the processor's, as every output names it
     * ({@code "simulated skylake"}), or null where the kernel answers them all (everywhere but in tests).
     */
    default String simulatedPmu() {
        return null;
    }

    /**
     * {@code syscall(number, a1, ..., a5)} on the calling thread: the result or -errno. For the calls that
     * {@link FileCalls} and {@link ThreadCredentials} make by number; pointers are native addresses.
     */
    long syscall(long number, long a1, long a2, long a3, long a4, long a5);

    /** The calling thread's kernel thread id. */
    int gettid();

    /**
     * {@code sched_setaffinity(tid, mask)}. The mask is the kernel's bit array: bit {@code n % 64} of
     * {@code mask[n / 64]} is CPU n. Any length, so machines with more than 1024 CPUs work.
     * Returns 0 or -errno.
     */
    int setAffinity(int tid, long[] mask);

    /**
     * {@code sched_getaffinity(tid, mask)}: returns the number of bytes the kernel wrote, or -errno
     * ({@code -EINVAL} when the mask is smaller than the kernel's cpumask: retry with a longer one).
     */
    int getAffinity(int tid, long[] mask);

    /** {@code getcpu}: the CPU in the low 32 bits, the NUMA node in the high 32 bits, or -errno. */
    long getcpu();

    /** {@code perf_event_open(attr, pid, cpu, group_fd, flags)}: a file descriptor or -errno. */
    int perfEventOpen(long attrAddress, int pid, int cpu, int groupFd, long flags);

    /** {@code read(fd, address, length)}: bytes read or -errno. */
    long read(int fd, long address, int length);

    /** {@code ioctl(fd, request, arg)}: 0 or -errno. */
    int ioctl(int fd, long request, long arg);

    /** {@code close(fd)}: 0 or -errno. */
    int close(int fd);

    /**
     * Maps the first page of a perf event for {@link #selfRead}: its address, 0 where this backend
     * cannot self-read through the page (then {@link #selfRead} uses read(2)), or -errno.
     */
    long mmapPerfPage(int fd);

    /** Unmaps a page from {@link #mmapPerfPage}: 0 or -errno. */
    int munmapPerfPage(long pageAddress);

    /**
     * Reads the calling thread's own counter into three longs at {@code outAddress}: value, time enabled,
     * time running. With a page from {@link #mmapPerfPage} and a kernel that allows it, through rdpmc
     * under the page's seqlock; otherwise read(2), for which the event must have been opened alone with
     * {@code read_format = TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING}.
     * Returns 1 when rdpmc was used, 0 when read(2) was, or -errno.
     */
    int selfRead(long pageAddress, int fd, long outAddress);

    /** The native address of a direct buffer. */
    long addressOf(ByteBuffer direct);
}
