package io.perfpin.nativeio;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The file system calls that take a directory descriptor, which java.nio does not offer with the flags perfpin
 * needs ({@code O_NONBLOCK}, {@code O_PATH}, {@code openat2}'s {@code RESOLVE_*}). Each returns a non-negative
 * result or -errno, as {@link Syscalls} does. Paths travel as NUL-terminated bytes in a direct buffer of the
 * call's own: none of these is on a hot path.
 */
public final class FileCalls {
    private static final boolean ARM64 = "aarch64".equals(System.getProperty("os.arch"));

    public static final int AT_FDCWD = -100;
    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 01;
    public static final int O_RDWR = 02;
    public static final int O_CREAT = 0100;
    public static final int O_EXCL = 0200;
    public static final int O_NOCTTY = 0400;
    public static final int O_NONBLOCK = 04000;
    /** arm64 numbers these two (and O_DIRECT) differently from x86-64. */
    public static final int O_DIRECTORY = ARM64 ? 040000 : 0200000;
    public static final int O_NOFOLLOW = ARM64 ? 0100000 : 0400000;
    public static final int O_CLOEXEC = 02000000;
    public static final int O_PATH = 010000000;

    public static final long RESOLVE_NO_XDEV = 0x01;
    public static final long RESOLVE_NO_MAGICLINKS = 0x02;
    public static final long RESOLVE_NO_SYMLINKS = 0x04;
    public static final long RESOLVE_BENEATH = 0x08;
    public static final long RESOLVE_IN_ROOT = 0x10;

    public static final int AT_SYMLINK_NOFOLLOW = 0x100;
    public static final int AT_REMOVEDIR = 0x200;
    public static final int AT_EMPTY_PATH = 0x1000;

    /** struct open_how: u64 flags, u64 mode, u64 resolve. */
    private static final int OPEN_HOW_BYTES = 24;
    /** struct statx is 256 bytes on every architecture. */
    private static final int STATX_BYTES = 256;
    private static final int STATX_BASIC_STATS = 0x7ff;
    private static final int PATH_MAX = 4096;

    private final Syscalls syscalls;
    private final SyscallNumbers numbers = SyscallNumbers.forThisMachine();

    private static volatile FileCalls process;

    public FileCalls(Syscalls syscalls) {
        this.syscalls = syscalls;
    }

    /** Over the process-wide backend ({@link Backends#syscalls()}), made on first use. */
    public static FileCalls ofProcess() {
        FileCalls known = process;
        if (known == null) {
            known = new FileCalls(Backends.syscalls());
            process = known;
        }
        return known;
    }

    public Syscalls syscalls() {
        return syscalls;
    }

    /** {@code openat(dirfd, path, flags, mode)}. */
    public int openat(int dirfd, String path, int flags, int mode) {
        NativeBuffer name = cString(path);
        return (int) syscalls.syscall(numbers.openat, dirfd, name.address(), flags, mode, 0);
    }

    /** {@code openat2(dirfd, path, {flags, mode, resolve})}: -ENOSYS on kernels before 5.6. */
    public int openat2(int dirfd, String path, int flags, int mode, long resolve) {
        NativeBuffer name = cString(path);
        NativeBuffer how = NativeBuffer.allocate(syscalls, OPEN_HOW_BYTES);
        how.buffer().putLong(0, flags & 0xFFFF_FFFFL).putLong(8, mode).putLong(16, resolve);
        return (int) syscalls.syscall(numbers.openat2, dirfd, name.address(), how.address(), OPEN_HOW_BYTES, 0);
    }

    /** {@code statx(dirfd, path, flags, STATX_BASIC_STATS)}; with an empty path and AT_EMPTY_PATH, fstat. */
    public FileStat statx(int dirfd, String path, int flags) {
        NativeBuffer name = cString(path);
        NativeBuffer out = NativeBuffer.allocate(syscalls, STATX_BYTES);
        long rc = syscalls.syscall(numbers.statx, dirfd, name.address(), flags, STATX_BASIC_STATS, out.address());
        if (rc < 0) {
            throw new NativeException("statx", (int) -rc);
        }
        ByteBuffer b = out.buffer();
        return new FileStat(b.getShort(28) & 0xFFFF, b.getInt(20), b.getInt(24), b.getLong(40), b.getInt(16),
                b.getLong(32), (long) b.getInt(136) << 32 | b.getInt(140) & 0xFFFF_FFFFL);
    }

    /** What the open descriptor {@code fd} refers to ({@code fstat}). */
    public FileStat fstat(int fd) {
        return statx(fd, "", AT_EMPTY_PATH);
    }

    /** {@code unlinkat(dirfd, name, flags)}. */
    public int unlinkat(int dirfd, String name, int flags) {
        return (int) syscalls.syscall(numbers.unlinkat, dirfd, cString(name).address(), flags, 0, 0);
    }

    /**
     * {@code renameat2(fromDir, from, toDir, to, flags)}: both names relative to a directory descriptor, so that
     * a rename never resolves a path again (glibc's {@code rename} wrapper would).
     */
    public int renameat2(int fromDir, String from, int toDir, String to, int flags) {
        NativeBuffer fromName = cString(from);
        NativeBuffer toName = cString(to);
        return (int) syscalls.syscall(numbers.renameat2, fromDir, fromName.address(), toDir, toName.address(), flags);
    }

    /** {@code mkdirat(dirfd, name, mode)}. */
    public int mkdirat(int dirfd, String name, int mode) {
        return (int) syscalls.syscall(numbers.mkdirat, dirfd, cString(name).address(), mode, 0, 0);
    }

    /** {@code fchmod(fd, mode)}: only for what perfpin itself just created with O_EXCL. */
    public int fchmod(int fd, int mode) {
        return (int) syscalls.syscall(numbers.fchmod, fd, mode, 0, 0, 0);
    }

    /**
     * The target of the symbolic link {@code name} in {@code dirfd}, as bytes decoded as UTF-8.
     *
     * @throws NativeException when it cannot be read (EINVAL: not a link)
     */
    public String readlinkat(int dirfd, String name) {
        NativeBuffer out = NativeBuffer.allocate(syscalls, PATH_MAX);
        long n = syscalls.syscall(numbers.readlinkat, dirfd, cString(name).address(), out.address(), PATH_MAX, 0);
        if (n < 0) {
            throw new NativeException("readlinkat", (int) -n);
        }
        byte[] bytes = new byte[(int) n];
        out.buffer().get(0, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** {@code write(fd, bytes)} in full, or -errno. */
    public long writeAll(int fd, byte[] bytes) {
        NativeBuffer in = NativeBuffer.allocate(syscalls, Math.max(1, bytes.length));
        in.buffer().put(0, bytes);
        long written = 0;
        while (written < bytes.length) {
            long n = syscalls.syscall(numbers.write, fd, in.address() + written, bytes.length - written, 0, 0);
            if (n < 0 && n != -Errno.EINTR) {
                return n;
            }
            written += Math.max(n, 0);
        }
        return written;
    }

    public int close(int fd) {
        return syscalls.close(fd);
    }

    private NativeBuffer cString(String path) {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            if (b == 0) {
                throw new IllegalArgumentException("a path with a NUL byte: " + path.replace('\0', '?'));
            }
        }
        NativeBuffer buffer = NativeBuffer.allocate(syscalls, bytes.length + 1);
        buffer.buffer().put(0, bytes).put(bytes.length, (byte) 0);
        return buffer;
    }
}
