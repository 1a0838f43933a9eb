package io.perfpin.cpu;

import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeException;
import io.perfpin.nativeio.Syscalls;

/**
 * Reads and sets the CPU affinity of kernel threads by thread id, through {@link Syscalls}. Failures throw
 * {@link NativeException}, whose message and {@link NativeException#errno()} name the errno.
 */
public final class ThreadAffinity {
    /** glibc's {@code cpu_set_t} size (1024 CPUs): enough for most kernels' cpumask on the first try. */
    private static final int FIRST_MASK_WORDS = 16;

    private static final int MAX_MASK_WORDS = (CpuSet.MAX_CPU + 1) / 64;

    private final Syscalls syscalls;

    public ThreadAffinity(Syscalls syscalls) {
        this.syscalls = syscalls;
    }

    /** Through the process-wide backend ({@link Backends#syscalls()}). */
    public static ThreadAffinity system() {
        return new ThreadAffinity(Backends.syscalls());
    }

    /** The calling thread's kernel thread id. */
    public int currentTid() {
        return syscalls.gettid();
    }

    /** The CPU the calling thread runs on now ({@code getcpu}). */
    public int currentCpu() {
        long cpuAndNode = Errno.check(syscalls.getcpu(), "getcpu");
        return (int) cpuAndNode;
    }

    /**
     * Restricts thread {@code tid} to {@code cpus}.
     *
     * @throws NativeException with EINVAL when no CPU of the set is online and allowed by the cpuset cgroup,
     *                         ESRCH when there is no such thread, EPERM when it belongs to another user
     */
    public void set(int tid, CpuSet cpus) {
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException("cannot pin thread " + tid + " to no CPU at all");
        }
        int result = syscalls.setAffinity(tid, cpus.toMask(cpus.maskWords()));
        if (result < 0) {
            throw new NativeException("sched_setaffinity(tid " + tid + ", " + cpus.inWords() + ")", -result);
        }
    }

    /**
     * Thread {@code tid}'s affinity. The kernel refuses a mask shorter than its cpumask with EINVAL, whose
     * size user space cannot ask for, so the mask doubles until it fits.
     *
     * @throws NativeException with ESRCH when there is no such thread
     */
    public CpuSet get(int tid) {
        for (int words = FIRST_MASK_WORDS; ; words *= 2) {
            long[] mask = new long[words];
            int result = syscalls.getAffinity(tid, mask);
            if (result >= 0) {
                return CpuSet.fromMask(mask);
            }
            if (result != -Errno.EINVAL || words >= MAX_MASK_WORDS) {
                throw new NativeException("sched_getaffinity(tid " + tid + ")", -result);
            }
        }
    }
}
