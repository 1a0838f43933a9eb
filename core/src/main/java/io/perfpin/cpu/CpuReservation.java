package io.perfpin.cpu;

import io.perfpin.files.Uninterrupted;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * CPUs held for one thread through {@link CpuReservations}, until {@link #close()} or the death of the
 * process, whichever comes first (the kernel drops the locks of a dead process).
 */
public final class CpuReservation implements AutoCloseable {
    /** One CPU's lock file, open with its lock held. */
    static final class LockedFile {
        final CpuReservations.LockFileId file;
        final FileChannel channel;

        LockedFile(CpuReservations.LockFileId file, FileChannel channel) {
            this.file = file;
            this.channel = channel;
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
        IOException failure = null;
        boolean interrupted = Uninterrupted.clear(); // on the application's thread, whose task may have been cancelled
        try {
            for (LockedFile lock : locks) {
                try (FileChannel channel = lock.channel) {
                    channel.truncate(0);
                } catch (IOException e) {
                    failure = failure == null ? e : failure;
                }
            }
        } finally {
            Uninterrupted.restore(interrupted);
        }
        if (failure != null) {
            throw new UncheckedIOException("releasing a CPU reservation: " + failure.getMessage(), failure);
        }
    }

    @Override
    public String toString() {
        return cpus.inWords() + " for thread " + tid + " \"" + threadName + "\"";
    }
}
