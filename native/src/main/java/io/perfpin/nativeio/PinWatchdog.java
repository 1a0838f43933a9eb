package io.perfpin.nativeio;

import java.util.concurrent.TimeUnit;

/**
 * A child process that gives the threads this process pinned in other processes their CPUs back when this
 * process ends without doing it itself, killed with SIGKILL included. It is perfpin's C library
 * ({@code pinwatchdog.c}), forked; its name in {@code ps} is {@link #PROCESS_NAME}.
 *
 * <p>Tell it of each pin before setting it ({@link #pinning}), and of each thread that got its CPUs back
 * ({@link #released}). When this process closes it, or ends in whatever way, the watchdog gives each pin
 * not released its CPUs back, and exits. It does so only while the thread is still the one pinned (the
 * same start time: TIDs are reused), its process still runs the same program as the same users (no exec since,
 * of a setuid program say), and its affinity is still the one pinned (whoever pinned it since wins), so a
 * record it holds in vain is harmless. It keeps this process's standard error, to say which it left alone. It holds
 * masks of up to 8192 CPUs, the most an x86-64 kernel has.
 *
 * <p>Only the JNI backend starts one: after a JVM forks, only code that makes nothing but system calls may
 * run in the child, which Java code through jffi or JNA is not.
 */
public final class PinWatchdog implements AutoCloseable {
    /** Its {@code comm}, which {@code pinwatchdog.c} sets. It maps libjvm.so, as the JVM it was forked from. */
    public static final String PROCESS_NAME = "perfpin-pins";
    /** It restores a few threads and exits at once; a wait this long means it hangs, and is left to init. */
    private static final long EXIT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Syscalls syscalls;
    private final int pid;
    /**
     * The pipe's write end; -1 once closed. Written and closed under this object's lock: a write after the close, or
     * racing it, would go to whatever file took the number since.
     */
    private int fd;

    private PinWatchdog(Syscalls syscalls, int pid, int fd) {
        this.syscalls = syscalls;
        this.pid = pid;
        this.fd = fd;
    }

    /** Whether {@link #start} works with this backend. */
    public static boolean startsWith(Syscalls syscalls) {
        return syscalls.backend() == Backend.JNI;
    }

    /**
     * Forks a watchdog.
     *
     * @throws IllegalStateException when the backend is not JNI ({@link #startsWith})
     * @throws NativeException       when the pipe or the process cannot be had
     */
    public static PinWatchdog start(Syscalls syscalls) {
        if (!startsWith(syscalls)) {
            throw new IllegalStateException("the " + syscalls.backend() + " backend cannot start a pin watchdog");
        }
        int[] pidAndFd = new int[2];
        Errno.check(JniSyscalls.watchdogStart0(pidAndFd), "fork");
        return new PinWatchdog(syscalls, pidAndFd[0], pidAndFd[1]);
    }

    /**
     * What a process runs and as whom, as the watchdog checks it before a restore: an exec keeps a thread's TID,
     * start time and mask, and a setuid program runs as root.
     *
     * @param exeDevice   device of the file {@code /proc/<pid>/exe} leads to
     * @param exeInode    its inode; 0 when perfpin could not tell, and then only the credentials are checked
     * @param credentials the four ids of {@code Uid:} and then the four of {@code Gid:} in {@code /proc/<pid>/status}
     */
    public record Program(long exeDevice, long exeInode, int[] credentials) {
        public Program {
            if (credentials.length != 8) {
                throw new IllegalArgumentException("expected 8 ids (Uid: and Gid:), got " + credentials.length);
            }
            credentials = credentials.clone();
        }

        @Override
        public int[] credentials() {
            return credentials.clone();
        }
    }

    /** Its process id. */
    public int pid() {
        return pid;
    }

    /**
     * Thread {@code tid} of process {@code pid}, which started at {@code startTime} (field 22 of its
     * {@code /proc} stat file), is about to be pinned to {@code pinned} and had {@code before}. Masks are the
     * kernel's bit arrays ({@link Syscalls#setAffinity}). A thread told of again replaces what was held.
     *
     * @param program what the process runs and as whom: the watchdog leaves the thread alone, in one line on
     *                perfpin's standard error, once the process has exec'd another program or runs as other users
     * @throws NativeException when the watchdog is gone (EPIPE), closed here (EBADF), or a mask has more than 8192 CPUs
     *                         (E2BIG)
     */
    public synchronized void pinning(int pid, int tid, long startTime, Program program, long[] before, long[] pinned) {
        Errno.check(
                fd < 0
                        ? -Errno.EBADF
                        : JniSyscalls.watchdogPinning0(
                                fd,
                                pid,
                                tid,
                                startTime,
                                program.exeDevice(),
                                program.exeInode(),
                                program.credentials(),
                                before,
                                pinned),
                "write to the pin watchdog");
    }

    /**
     * Thread {@code tid} of process {@code pid} got its CPUs back, or never was pinned: nothing to restore.
     *
     * @throws NativeException when the watchdog is gone (EPIPE), or closed here (EBADF)
     */
    public synchronized void released(int pid, int tid) {
        Errno.check(fd < 0 ? -Errno.EBADF : JniSyscalls.watchdogReleased0(fd, pid, tid), "write to the pin watchdog");
    }

    /**
     * Ends its input: it restores what was not released and exits, and is reaped here (no zombie stays). Later
     * {@link #pinning} and {@link #released} are refused with EBADF.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (fd < 0) {
                return;
            }
            syscalls.close(fd);
            fd = -1;
        }
        // reaped outside the lock: a call that comes meanwhile is refused at once, not held up to its end
        long deadline = System.nanoTime() + EXIT_WAIT_NANOS;
        while (JniSyscalls.watchdogReap0(pid) == 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
