package io.perfpin.nativeio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The {@link Syscalls} contract over libc alone, for the backends that can call a C function but bring no
 * C code of their own ({@link Backend#JFFI}, {@link Backend#JNA}). A subclass binds five libc functions;
 * this class turns libc's "-1 and errno" into the contract's -errno and passes every pointer as an address.
 *
 * <p>{@code read}, {@code ioctl}, {@code close} and {@code sched_setaffinity} are called through their libc
 * wrappers. {@code gettid}, {@code getcpu}, {@code perf_event_open} and {@code sched_getaffinity} go through
 * {@code syscall(2)}: glibc has no wrapper for perf_event_open, added gettid and getcpu only in 2.29/2.30, and
 * its sched_getaffinity returns 0 where the contract wants the kernel's byte count.
 *
 * <p>Without perfpin's C code there is no rdpmc: {@link #mmapPerfPage} maps nothing and returns 0, so
 * {@link #selfRead} always uses read(2).
 *
 * <p>Masks and getcpu's out-parameters travel through a per-thread block of native memory, so no call
 * allocates on the Java heap once the calling thread has made its first one.
 */
abstract class LibcSyscalls implements Syscalls {
    private static final int SELF_READ_BYTES = 3 * Long.BYTES;
    /** Enough for a 2048-CPU mask; a longer mask grows the calling thread's block. */
    private static final int INITIAL_SCRATCH_BYTES = 256;

    private final SyscallNumbers numbers = SyscallNumbers.forThisMachine();
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(() -> new Scratch(INITIAL_SCRATCH_BYTES));

    /** {@code long syscall(long number, ...)} with five arguments; unused ones are ignored by the kernel. */
    abstract long libcSyscall(long number, long a1, long a2, long a3, long a4, long a5);

    /** {@code ssize_t read(int fd, void *buf, size_t count)}. */
    abstract long libcRead(int fd, long address, long count);

    /** {@code int ioctl(int fd, unsigned long request, ...)} with one argument. */
    abstract int libcIoctl(int fd, long request, long arg);

    /** {@code int close(int fd)}. */
    abstract int libcClose(int fd);

    /** {@code int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)}. */
    abstract int libcSchedSetaffinity(int tid, long size, long maskAddress);

    /** The errno the calling thread's last call through this backend left, read before anything else runs. */
    abstract int lastErrno();

    /** The address of a direct buffer, 0 when it has none. */
    abstract long directBufferAddress(ByteBuffer buffer);

    @Override
    public long syscall(long number, long a1, long a2, long a3, long a4, long a5) {
        return resultOf(libcSyscall(number, a1, a2, a3, a4, a5));
    }

    @Override
    public int gettid() {
        return (int) libcSyscall(numbers.gettid, 0, 0, 0, 0, 0);
    }

    @Override
    public int setAffinity(int tid, long[] mask) {
        Scratch block = scratchFor(mask.length);
        block.put(mask);
        return (int) resultOf(libcSchedSetaffinity(tid, (long) mask.length * Long.BYTES, block.address));
    }

    @Override
    public int getAffinity(int tid, long[] mask) {
        Scratch block = scratchFor(mask.length);
        // Copied in first so that words beyond the kernel's count keep the caller's values, as with JNI.
        block.put(mask);
        long rc = resultOf(
                libcSyscall(numbers.schedGetaffinity, tid, (long) mask.length * Long.BYTES, block.address, 0, 0));
        block.get(mask);
        return (int) rc;
    }

    /** The kernel writes {@code unsigned cpu} and {@code unsigned node} into the first 8 bytes of the block. */
    @Override
    public long getcpu() {
        Scratch block = scratch.get();
        long rc = libcSyscall(numbers.getcpu, block.address, block.address + Integer.BYTES, 0, 0, 0);
        if (rc < 0) {
            return -lastErrno();
        }
        long cpu = block.buffer.getInt(0) & 0xFFFF_FFFFL;
        long node = block.buffer.getInt(Integer.BYTES) & 0xFFFF_FFFFL;
        return node << 32 | cpu;
    }

    @Override
    public int perfEventOpen(long attrAddress, int pid, int cpu, int groupFd, long flags) {
        return (int) resultOf(libcSyscall(numbers.perfEventOpen, attrAddress, pid, cpu, groupFd, flags));
    }

    @Override
    public long read(int fd, long address, int length) {
        return resultOf(libcRead(fd, address, length));
    }

    @Override
    public int ioctl(int fd, long request, long arg) {
        return (int) resultOf(libcIoctl(fd, request, arg));
    }

    @Override
    public int close(int fd) {
        return (int) resultOf(libcClose(fd));
    }

    /** Maps nothing: rdpmc needs perfpin's C code. 0 tells {@link #selfRead} to use read(2). */
    @Override
    public long mmapPerfPage(int fd) {
        return 0;
    }

    @Override
    public int munmapPerfPage(long pageAddress) {
        return pageAddress == 0 ? 0 : -Errno.EINVAL;
    }

    /** Always read(2), whatever the page: {@link #mmapPerfPage} never maps one. */
    @Override
    public int selfRead(long pageAddress, int fd, long outAddress) {
        long n = read(fd, outAddress, SELF_READ_BYTES);
        if (n < 0) {
            return (int) n;
        }
        return n == SELF_READ_BYTES ? 0 : -Errno.EIO;
    }

    @Override
    public long addressOf(ByteBuffer direct) {
        long address = direct.isDirect() ? directBufferAddress(direct) : 0;
        return Errno.check(address == 0 ? -Errno.EINVAL : address, "GetDirectBufferAddress");
    }

    private long resultOf(long rc) {
        return rc < 0 ? -lastErrno() : rc;
    }

    private Scratch scratchFor(int words) {
        Scratch block = scratch.get();
        if (block.buffer.capacity() < words * Long.BYTES) {
            block = new Scratch(words * Long.BYTES);
            scratch.set(block);
        }
        return block;
    }

    /** A thread's block of native memory for masks and out-parameters. */
    private final class Scratch {
        final ByteBuffer buffer;
        final long address;

        Scratch(int bytes) {
            buffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            address = addressOf(buffer);
        }

        void put(long[] words) {
            for (int i = 0; i < words.length; i++) {
                buffer.putLong(i * Long.BYTES, words[i]);
            }
        }

        void get(long[] words) {
            for (int i = 0; i < words.length; i++) {
                words[i] = buffer.getLong(i * Long.BYTES);
            }
        }
    }
}
