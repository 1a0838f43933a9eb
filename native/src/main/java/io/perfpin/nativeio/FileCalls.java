package io.perfpin.nativeio;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The file system calls that take a directory descriptor, which java.nio does not offer with the flags perfpin
 * needs ({@code O_NONBLOCK}, {@code O_PATH}), and those of a process's descriptor (pidfd). Each returns a non-negative
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

    public static final int AT_SYMLINK_NOFOLLOW = 0x100;
    public static final int AT_REMOVEDIR = 0x200;
    public static final int AT_EMPTY_PATH = 0x1000;
    /** renameat2's flag: fail with EEXIST rather than replace what is there. */
    public static final int RENAME_NOREPLACE = 1;
    /**
     * fcntl(2)'s commands for a record lock that does not wait: an open file description's (Linux 3.15), and the
     * process's, for a kernel that has no other (asm-generic/fcntl.h, linux/fcntl.h); and their write lock.
     */
    private static final int F_OFD_SETLK = 37;

    private static final int F_SETLK = 6;

    private static final short F_WRLCK = 1;
    private static final short SEEK_SET = 0;
    // struct flock on x86-64 and arm64: short l_type, short l_whence, (pad), off_t l_start, off_t l_len, pid_t l_pid
    private static final int FLOCK_TYPE = 0;
    private static final int FLOCK_WHENCE = 2;
    private static final int FLOCK_START = 8;
    private static final int FLOCK_LEN = 16;
    private static final int FLOCK_SIZE = 32;

    /** fcntl(2)'s command for a duplicate at the lowest free number from its argument on, close-on-exec. */
    private static final int F_DUPFD_CLOEXEC = 1030;

    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_CLOEXEC = O_CLOEXEC;
    private static final int SOCK_NONBLOCK = O_NONBLOCK;
    /** struct sockaddr_un: sun_family (2 bytes), then sun_path, 108 bytes with its NUL. */
    private static final int SOCKADDR_UN_BYTES = 110;
    /** struct pollfd: fd (int), events (short), revents (short). */
    private static final int POLLFD_BYTES = 8;

    private static final short POLLIN = 1;

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
        return (int) call(numbers.openat, dirfd, name.address(), flags, mode, 0, name);
    }

    /** {@code statx(dirfd, path, flags, STATX_BASIC_STATS)}; with an empty path and AT_EMPTY_PATH, fstat. */
    public FileStat statx(int dirfd, String path, int flags) {
        NativeBuffer name = cString(path);
        NativeBuffer out = NativeBuffer.allocate(syscalls, STATX_BYTES);
        long rc = call(numbers.statx, dirfd, name.address(), flags, STATX_BASIC_STATS, out.address(), name, out);
        if (rc < 0) {
            throw new NativeException("statx", (int) -rc);
        }
        ByteBuffer b = out.buffer();
        return new FileStat(
                b.getShort(28) & 0xFFFF,
                b.getInt(20),
                b.getInt(24),
                b.getLong(40),
                b.getInt(16),
                b.getLong(32),
                (long) b.getInt(136) << 32 | b.getInt(140) & 0xFFFF_FFFFL,
                // stx_ctime: a statx_timestamp, seconds (s64) then nanoseconds (u32)
                b.getLong(96) * 1_000_000_000L + (b.getInt(104) & 0xFFFF_FFFFL));
    }

    /** What the open descriptor {@code fd} refers to ({@code fstat}). */
    public FileStat fstat(int fd) {
        return statx(fd, "", AT_EMPTY_PATH);
    }

    /** {@code unlinkat(dirfd, name, flags)}. */
    public int unlinkat(int dirfd, String name, int flags) {
        NativeBuffer entry = cString(name);
        return (int) call(numbers.unlinkat, dirfd, entry.address(), flags, 0, 0, entry);
    }

    /**
     * {@code renameat2(fromDir, from, toDir, to, flags)}: both names relative to a directory descriptor, so that
     * a rename never resolves a path again (glibc's {@code rename} wrapper would).
     */
    public int renameat2(int fromDir, String from, int toDir, String to, int flags) {
        NativeBuffer fromName = cString(from);
        NativeBuffer toName = cString(to);
        return (int)
                call(numbers.renameat2, fromDir, fromName.address(), toDir, toName.address(), flags, fromName, toName);
    }

    /** {@code mkdirat(dirfd, name, mode)}. */
    public int mkdirat(int dirfd, String name, int mode) {
        NativeBuffer entry = cString(name);
        return (int) call(numbers.mkdirat, dirfd, entry.address(), mode, 0, 0, entry);
    }

    /**
     * The target of the symbolic link {@code name} in {@code dirfd}, as bytes decoded as UTF-8.
     *
     * @throws NativeException when it cannot be read (EINVAL: not a link)
     */
    public String readlinkat(int dirfd, String name) {
        NativeBuffer out = NativeBuffer.allocate(syscalls, PATH_MAX);
        NativeBuffer entry = cString(name);
        long n = call(numbers.readlinkat, dirfd, entry.address(), out.address(), PATH_MAX, 0, entry, out);
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
            long n = call(numbers.write, fd, in.address() + written, bytes.length - written, 0, 0, in);
            if (n < 0 && n != -Errno.EINTR) {
                return n;
            }
            written += Math.max(n, 0);
        }
        return written;
    }

    /** {@code read(fd, into, its size)}: the bytes read (0 at the end), or -errno. */
    public long read(int fd, NativeBuffer into) {
        return call(numbers.read, fd, into.address(), into.size(), 0, 0, into);
    }

    /**
     * {@code socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)}: a descriptor, or -errno. Non-blocking,
     * so that neither a listener whose queue is full nor a peer that writes nothing holds the caller: it waits in
     * {@link #awaitReadable}, which has a deadline.
     */
    public int unixSocket() {
        return (int) call(numbers.socket, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, 0, 0);
    }

    /** {@code connect(fd, path)} for a Unix socket {@code fd}: 0, or -errno. */
    public int connectUnix(int fd, String path) {
        NativeBuffer name = cString(path);
        if (name.size() > SOCKADDR_UN_BYTES - 2) {
            throw new IllegalArgumentException("a socket path over 107 bytes: " + path);
        }
        NativeBuffer address = NativeBuffer.allocate(syscalls, SOCKADDR_UN_BYTES);
        byte[] bytes = new byte[name.size()];
        name.buffer().get(0, bytes);
        address.buffer().putShort(0, (short) AF_UNIX).put(2, bytes);
        return (int) call(numbers.connect, fd, address.address(), 2 + bytes.length, 0, 0, address);
    }

    /**
     * Waits up to {@code nanos} for {@code fd} to have something to read, or its end ({@code ppoll}): above 0 when
     * it has, 0 when the time ran out, or -errno.
     */
    public int awaitReadable(int fd, long nanos) {
        NativeBuffer poll = NativeBuffer.allocate(syscalls, POLLFD_BYTES + 16);
        poll.buffer()
                .putInt(0, fd)
                .putShort(4, POLLIN)
                .putLong(POLLFD_BYTES, nanos / 1_000_000_000L)
                .putLong(POLLFD_BYTES + 8, nanos % 1_000_000_000L);
        return (int) call(numbers.ppoll, poll.address(), 1, poll.address() + POLLFD_BYTES, 0, 0, poll);
    }

    public int close(int fd) {
        return syscalls.close(fd);
    }

    /**
     * {@code fcntl(fd, F_OFD_SETLK, a write lock on the whole file)}: 0, or -errno ({@code EAGAIN} or {@code EACCES}
     * where a lock is held on it through another open of the file, in this process or another). The lock belongs to
     * the open file description that {@code fd} refers to, not to the process, so a second open in this process, as a
     * second copy of perfpin's classes in one JVM makes (an application's own beside the agent's), is refused it too,
     * and closing another descriptor of the file drops nothing; the kernel drops it when the last descriptor of that
     * open closes, a crash included. It conflicts with a process's POSIX record lock (an older perfpin's) as another
     * process's would. A kernel without such locks (EINVAL) gets the process's POSIX record lock, as {@code
     * FileChannel.tryLock()} takes. Taken on a descriptor, not a channel, since a channel closes itself, and drops the
     * lock, when its thread is interrupted.
     */
    public int tryLockWhole(int fd) {
        NativeBuffer flock = NativeBuffer.allocate(syscalls, FLOCK_SIZE);
        ByteBuffer struct = flock.buffer(); // zeroed: the padding and l_pid too, which an open file's lock requires
        struct.putShort(FLOCK_TYPE, F_WRLCK);
        struct.putShort(FLOCK_WHENCE, SEEK_SET);
        struct.putLong(FLOCK_START, 0);
        struct.putLong(FLOCK_LEN, 0); // to the end, however far the file grows
        int locked = (int) call(numbers.fcntl, fd, F_OFD_SETLK, flock.address(), 0, 0, flock);
        return locked == -Errno.EINVAL ? (int) call(numbers.fcntl, fd, F_SETLK, flock.address(), 0, 0, flock) : locked;
    }

    /** {@code ftruncate(fd, length)}: 0, or -errno. */
    public int ftruncate(int fd, long length) {
        return (int) call(numbers.ftruncate, fd, length, 0, 0, 0);
    }

    /** {@code fcntl(fd, F_DUPFD_CLOEXEC, lowest)}: a duplicate of {@code fd} numbered {@code lowest} or more. */
    public int dupAtLeast(int fd, int lowest) {
        return (int) call(numbers.fcntl, fd, F_DUPFD_CLOEXEC, lowest, 0, 0);
    }

    /**
     * {@code pidfd_open(pid, 0)}: a descriptor of process {@code pid} (close-on-exec, as every pidfd is) that names
     * that process alone, whatever takes its pid after it ends; -ENOSYS before Linux 5.3, -ESRCH when there is none.
     */
    public int pidfdOpen(long pid) {
        return (int) call(numbers.pidfdOpen, pid, 0, 0, 0, 0);
    }

    /**
     * {@code pidfd_send_signal(pidfd, signal, NULL, 0)}: {@code signal} to the process of {@code pidfd}, as kill(2)
     * sends it; -ESRCH once that process has ended, even where its pid names another one now.
     */
    public int pidfdSendSignal(int pidfd, int signal) {
        return (int) call(numbers.pidfdSendSignal, pidfd, signal, 0, 0, 0);
    }

    /**
     * A call whose arguments point into {@code kept}: they stay reachable until it returns, or the buffers' memory
     * could be freed under the kernel's feet once their address is all that is left of them.
     */
    private long call(long number, long a1, long a2, long a3, long a4, long a5, NativeBuffer... kept) {
        try {
            return syscalls.syscall(number, a1, a2, a3, a4, a5);
        } finally {
            Reference.reachabilityFence(kept);
        }
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
