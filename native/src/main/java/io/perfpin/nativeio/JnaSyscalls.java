package io.perfpin.nativeio;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;

/**
 * The {@link Backend#JNA} backend: libc through JNA's direct mapping ({@link Native#register}), whose
 * calls with primitive arguments allocate nothing. JNA keeps each thread's errno after every direct call,
 * which {@link Native#getLastError()} returns.
 */
public final class JnaSyscalls extends LibcSyscalls {
    private static boolean registered;

    private JnaSyscalls() {}

    /** Binds libc; throws a {@link LinkageError} when JNA or its native part cannot load here. */
    public static synchronized Syscalls load() {
        if (!registered) {
            Native.register(Libc.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
            registered = true;
        }
        return new JnaSyscalls();
    }

    @Override
    public Backend backend() {
        return Backend.JNA;
    }

    @Override
    long libcSyscall(long number, long a1, long a2, long a3, long a4, long a5) {
        return Libc.syscall(number, a1, a2, a3, a4, a5);
    }

    @Override
    long libcRead(int fd, long address, long count) {
        return Libc.read(fd, address, count);
    }

    @Override
    int libcIoctl(int fd, long request, long arg) {
        return Libc.ioctl(fd, request, arg);
    }

    @Override
    int libcClose(int fd) {
        return Libc.close(fd);
    }

    @Override
    int libcSchedSetaffinity(int tid, long size, long maskAddress) {
        return Libc.sched_setaffinity(tid, size, maskAddress);
    }

    @Override
    int lastErrno() {
        return Native.getLastError();
    }

    @Override
    long directBufferAddress(ByteBuffer buffer) {
        Pointer pointer = Native.getDirectBufferPointer(buffer);
        return pointer == null ? 0 : Pointer.nativeValue(pointer);
    }

    /**
     * libc's functions as JNA binds them. Direct mapping cannot bind a variadic function, so syscall and
     * ioctl are declared with a fixed arity: the x86-64 and arm64 calling conventions pass the same
     * registers either way, and the callee ignores arguments it does not read. Pointers and size_t are
     * Java longs (LP64).
     */
    private static final class Libc {
        static native long syscall(long number, long a1, long a2, long a3, long a4, long a5);

        static native long read(int fd, long buf, long count);

        static native int ioctl(int fd, long request, long arg);

        static native int close(int fd);

        static native int sched_setaffinity(int pid, long size, long mask);
    }
}
