package io.perfpin.nativeio;

/**
 * Every platform thread's start and end, reported by the JVM itself (JVMTI's ThreadStart and ThreadEnd,
 * through perfpin's C library): the start on the new thread before its {@code run()}, whatever its class,
 * the end after {@code run()} returns or throws. No bytecode is woven for it. Only the JNI backend has it.
 */
public final class ThreadLifecycleEvents {
    private ThreadLifecycleEvents() {}

    /**
     * From now on the JVM calls {@code hooks.runStarting(Thread)} (returning boolean) and
     * {@code hooks.runEnded(Thread)} on each thread that starts or ends.
     *
     * @return 0, or -errno: -ENOSYS without the JNI backend or a JVMTI environment, -EINVAL when the hooks class
     *         lacks those methods
     */
    public static int enable(Syscalls syscalls, Class<?> hooks) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.threadEvents0(hooks, true) : -Errno.ENOSYS;
    }

    /** Stops the calls; a call already under way finishes. */
    public static int disable(Syscalls syscalls) {
        return syscalls.backend() == Backend.JNI ? JniSyscalls.threadEvents0(null, false) : -Errno.ENOSYS;
    }
}
