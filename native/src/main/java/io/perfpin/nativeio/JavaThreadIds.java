package io.perfpin.nativeio;

/**
 * The Linux TIDs of Java threads that already run, read by perfpin's C library from the JVM's own thread
 * structures, the way async-profiler reads them: no thread dump, no attach listener, no module beyond
 * java.base. Only the JNI backend on HotSpot has it.
 */
public final class JavaThreadIds {
    private JavaThreadIds() {}

    /**
     * Fills {@code tids[i]} with the TID of {@code threads[i]}, or -1 for a thread that is not running (not
     * started, ended, or ending meanwhile).
     *
     * @return how many were found, or -errno: -ENOSYS without the JNI backend, on a JVM that does not describe
     *         its thread structures (not HotSpot), or where the kernel refuses {@code process_vm_readv}, by which C
     *         reads them (a seccomp filter)
     */
    public static int of(Syscalls syscalls, Thread[] threads, int[] tids) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.javaThreadIds0(threads, tids) : -Errno.ENOSYS;
    }
}
