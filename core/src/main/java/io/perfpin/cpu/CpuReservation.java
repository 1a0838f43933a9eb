package io.perfpin.cpu;

import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.FileCalls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * CPUs held for one thread through {@link CpuReservations}, until {@link #close()} or the death of the
 * process, whichever comes first (the kernel drops a lock when the last descriptor of its open closes).
 */
public final class CpuReservation implements AutoCloseable {
    /** One CPU's lock file, open with its lock held: {@code fd} is perfpin's own, closed once, to unlock it. */
    static final class LockedFile {
        final CpuReservations.LockFileId file;
        final int fd;

        LockedFile(CpuReservations.LockFileId file, int fd) {
            this.file = file;
            this.fd = fd;
        }
    }

    private final CpuSet cpus;
    private final int tid;
    private final String threadName;
    private final List<LockedFile> locks;
    private boolean closed;

    CpuReservation(CpuSet cpus, int tid, String threadName, List<LockedFile> locks) {
        this.cpus = cpus;
        this.tid = tid;
        this.threadName = threadName;
        this.locks = locks;
    }

    public CpuSet cpus() {
        return cpus;
    }

    public int tid() {
        return tid;
    }

    public String threadName() {
        return threadName;
    }

    /** Releases the CPUs; closing again does nothing. */
    @Override
    public void close() {
        CpuReservations.release(this);
    }

    List<LockedFile> locks() {
        return locks;
    }

    /** Marks this closed; false when it already was. Called under {@link CpuReservations}' lock. */
    boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    /**
     * Empties each file (so that what a person reads there is current), then closes it, which drops the lock.
     * Every file is closed even when one fails.
     */
    static void unlock(List<LockedFile> locks) {
        FileCalls calls = FileCalls.ofProcess();
        long failure = 0;
        for (LockedFile lock : locks) {
            try {
                int emptied = calls.ftruncate(lock.fd, 0);
                failure = failure == 0 && emptied < 0 ? emptied : failure;
            } finally {
                calls.close(lock.fd);
            }
        }
        if (failure < 0) {
            String message = "releasing a CPU reservation: cannot empty its lock file: " + Errno.words(failure);
            throw new UncheckedIOException(message, new IOException(message));
        }
    }

    @Override
    public String toString() {
        return cpus.inWords() + " for thread " + tid + " \"" + threadName + "\"";
    }
}
