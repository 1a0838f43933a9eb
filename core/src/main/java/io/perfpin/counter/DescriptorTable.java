package io.perfpin.counter;

import io.perfpin.jvm.ProcText;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.Syscalls;
import java.io.IOException;

/**
 * This process's table of descriptors, grown ahead of the counters that fill it. The kernel grows a table when a
 * descriptor does not fit, doubling it, and in a process of many threads the thread that opens that descriptor waits
 * for an RCU grace period ({@code expand_fdtable} in {@code fs/file.c}) before it goes on. With the agent, that thread
 * is one of the application's, opening its own counters as it starts: 9 to 21 ms here, at the 256th and the 512th
 * descriptor of a JVM that starts 100 threads. The sampler, which has time to wait, doubles the table once a quarter
 * of it is in use: as it looks at its ticks, and as soon as an enrolled thread (by C or by Java) holds a descriptor
 * numbered {@link #mark()} or more, which wakes it. While it grows the table, the three quarters left are room for a
 * pool's threads that start meanwhile.
 *
 * <p>A table of {@code n} entries is {@code 8 n} bytes of kernel memory, and never shrinks: this keeps it at 4 to 8
 * times the descriptors in use, and never past the open-file limit.
 */
public final class DescriptorTable {
    private static final String STATUS = "/proc/self/status";
    private static final String SIZE = "\nFDSize:";
    /** The root directory, named but not opened for reading: the number the kernel gives it is the lowest free one. */
    private static final int PATH_ONLY = FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_CLOEXEC;

    private final Syscalls syscalls;
    /** Made at the first look, on the sampler, not by the registry's start on the application's thread. */
    private FileCalls files;
    /** The entries the table held when last read: it only grows, so what it holds now is at least this. */
    private long size;
    /** Whether the table holds as many entries as the open-file limit lets it: it is not looked at again. */
    private boolean full;

    public DescriptorTable(Syscalls syscalls) {
        this.syscalls = syscalls;
    }

    /**
     * Grows the table where a quarter of it or more is in use, as the lowest free descriptor says, or {@code open}, a
     * descriptor known to be open (-1: none), where some below it closed since. Descriptors are given out lowest
     * first, so that the lowest free one is how full the table is, holes apart. The look costs one descriptor opened
     * and closed, and {@code /proc/self/status} is read only where the table looks a quarter full.
     *
     * @return whether it grew
     */
    public boolean keepAhead(int open) throws IOException {
        if (full) {
            return false;
        }
        if (files == null) {
            files = new FileCalls(syscalls);
        }
        int lowestFree = files.openat(FileCalls.AT_FDCWD, "/", PATH_ONLY, 0);
        if (lowestFree < 0) {
            return false; // no descriptor left: nothing to grow for, and the counting says why
        }
        int inUse = Math.max(lowestFree, open);
        try {
            if (inUse < size / 4) {
                return false;
            }
            size = size();
            if (inUse < size / 4) {
                return false;
            }
            if (openFileLimit() <= size) {
                full = true; // no descriptor past the table fits under the limit: nothing to grow for, ever
                return false;
            }
            long before = size;
            // the first number that does not fit, or four times those in use: one growth, as the kernel would make it
            makeRoom(files, lowestFree, Math.max(size, 4L * inUse) - lowestFree);
            size = size();
            return size > before; // where the duplicate failed, as when the process is out of descriptors: next time
        } finally {
            files.close(lowestFree);
        }
    }

    /**
     * The descriptor number from which the table wants another look: a quarter of it, as last read; 0 before the
     * first look, which the first counters opened then ask for; none once the table is as large as the limit lets it.
     */
    public int mark() {
        return full ? Integer.MAX_VALUE : (int) Math.min(size / 4, Integer.MAX_VALUE);
    }

    /**
     * Grows the table to hold {@code more} descriptors numbered above {@code fd}, an open descriptor, as far as the
     * open-file limit allows: a duplicate of {@code fd} at that number, closed at once. An application that put a
     * descriptor of its own at that very number meanwhile, with {@code dup2}, would lose it; one that does so
     * without opening it first risks that with any library that opens files.
     */
    static void makeRoom(FileCalls files, int fd, long more) {
        // fcntl refuses a number at or past the limit, and then grows nothing: the highest it takes
        long highest = more > 0 ? Math.min((long) fd + more, openFileLimit() - 1) : fd;
        if (highest > fd) {
            int far = files.dupAtLeast(fd, (int) highest);
            if (far >= 0) {
                files.close(far);
            }
        }
    }

    /** The entries the table holds now, as the kernel says ({@code FDSize}). */
    static long size() throws IOException {
        String size = ProcText.word(ProcText.read(STATUS), SIZE);
        if (size == null) {
            throw new IOException(STATUS + " has no line 'FDSize:'");
        }
        return Long.parseLong(size);
    }

    private static long openFileLimit() {
        try {
            return DescriptorBudget.openFileLimit();
        } catch (IOException | RuntimeException e) {
            return 0; // unknown: no growth
        }
    }
}
