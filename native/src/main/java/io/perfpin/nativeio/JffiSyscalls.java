package io.perfpin.nativeio;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import java.nio.ByteBuffer;

/**
 * The {@link Backend#JFFI} backend: libc through jffi's {@link Invoker}, whose {@code invokeL*} calls pass
 * primitives only and allocate nothing. Each call context saves errno, which {@link LastError} returns.
 *
 * <p>Every call goes through {@code invokeL*}, which returns the full 64-bit register: for a C function
 * returning {@code int} only the low 32 bits are defined, so those results are cast to int.
 */
public final class JffiSyscalls extends LibcSyscalls {
    private static final boolean SAVE_ERRNO = true;

    private final Invoker invoker = Invoker.getInstance();
    private final LastError lastError = LastError.getInstance();
    private final MemoryIO memory = MemoryIO.getInstance();

    private final LibcFunction syscall = LibcFunction.variadic(
            "syscall", Type.SLONG, 1, Type.SLONG, Type.SLONG, Type.SLONG, Type.SLONG, Type.SLONG, Type.SLONG);
    private final LibcFunction read = LibcFunction.fixed("read", Type.SLONG, Type.SINT, Type.POINTER, Type.ULONG);
    private final LibcFunction ioctl = LibcFunction.variadic("ioctl", Type.SINT, 2, Type.SINT, Type.ULONG, Type.ULONG);
    private final LibcFunction close = LibcFunction.fixed("close", Type.SINT, Type.SINT);
    private final LibcFunction schedSetaffinity =
            LibcFunction.fixed("sched_setaffinity", Type.SINT, Type.SINT, Type.ULONG, Type.POINTER);

    private JffiSyscalls() {}

    /** Binds libc; throws a {@link LinkageError} when jffi or its native part cannot load here. */
    public static Syscalls load() {
        return new JffiSyscalls();
    }

    @Override
    public Backend backend() {
        return Backend.JFFI;
    }

    @Override
    long libcSyscall(long number, long a1, long a2, long a3, long a4, long a5) {
        return invoker.invokeL6(syscall.context, syscall.address, number, a1, a2, a3, a4, a5);
    }

    @Override
    long libcRead(int fd, long address, long count) {
        return invoker.invokeL3(read.context, read.address, fd, address, count);
    }

    @Override
    int libcIoctl(int fd, long request, long arg) {
        return (int) invoker.invokeL3(ioctl.context, ioctl.address, fd, request, arg);
    }

    @Override
    int libcClose(int fd) {
        return (int) invoker.invokeL1(close.context, close.address, fd);
    }

    @Override
    int libcSchedSetaffinity(int tid, long size, long maskAddress) {
        return (int) invoker.invokeL3(schedSetaffinity.context, schedSetaffinity.address, tid, size, maskAddress);
    }

    @Override
    int lastErrno() {
        return lastError.get();
    }

    @Override
    long directBufferAddress(ByteBuffer buffer) {
        return memory.getDirectBufferAddress(buffer);
    }

    /** A libc symbol of this process and the call context that describes its C signature. */
    private static final class LibcFunction {
        final long address;
        final CallContext context;

        private LibcFunction(long address, CallContext context) {
            this.address = address;
            this.context = context;
        }

        static LibcFunction fixed(String name, Type result, Type... parameters) {
            return new LibcFunction(
                    symbol(name),
                    CallContext.getCallContext(result, parameters, CallingConvention.DEFAULT, SAVE_ERRNO));
        }

        /** A variadic function: libffi must know how many parameters are fixed to pass the rest right. */
        static LibcFunction variadic(String name, Type result, int fixedParameters, Type... parameters) {
            return new LibcFunction(
                    symbol(name),
                    CallContext.getCallContext(
                            result, fixedParameters, parameters, CallingConvention.DEFAULT, SAVE_ERRNO));
        }

        /** libc is always loaded into a JVM, so the process's default namespace has every symbol. */
        private static long symbol(String name) {
            long address = Library.getDefault().getSymbolAddress(name);
            if (address == 0) {
                throw new BackendUnavailableException("libc has no symbol " + name + ": " + Library.getLastError());
            }
            return address;
        }
    }
}
