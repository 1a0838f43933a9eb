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
 * descriptor of a JVM that starts 100 threads. The sampler, which has time to wait, grows the table to twice its size
 * once half of it is in use, and a thread that starts seldom meets a full table.
 *
 * <p>A table of {@code n} entries is {@code 8 n} bytes of kernel memory, and never shrinks: it grows only where the
 * descriptors already fill half of it, and never past the open-file limit.
 */
public final class DescriptorTable {
    private static final String STATUS = "/proc/self/status";
    private static final String SIZE = "\nFDSize:";

    private final Syscalls syscalls;
    /** Made at the first look, on the sampler, not by the registry's start on the application's thread. */
    private FileCalls files;
    /** The entries the table held when last read: it only grows, so what it holds now is at least this. */
    private long size;

    public DescriptorTable(Syscalls syscalls) {
        this.syscalls = syscalls;
    }

    /**
     * Grows the table to twice its size where the lowest free descriptor is in its upper half. Descriptors are given
     * out lowest first, so that number is how full the table is, holes apart. The look costs one descriptor opened
     * and closed, and {@code /proc/self/status} is read only where the table looks half full.
     *
     * @return whether it grew
     */
    public boolean keepAhead() throws IOException {
        if (files == null) {
            files = new FileCalls(syscalls);
        }
        // O_PATH: the root directory is not opened for reading, only named; its number is the lowest free one
        int lowestFree = files.openat(
                FileCalls.AT_FDCWD, "/", FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_CLOEXEC, 0);
        if (lowestFree < 0) {
            return false; // no descriptor left: nothing to grow for, and the counting says why
        }
        try {
            if (lowestFree < size / 2) {
                return false;
            }
            size = size();
            if (lowestFree < size / 2) {
                return false;
            }
            // the first number that does not fit: the kernel grows the table for it as for the application's own
            makeRoom(files, lowestFree, size - lowestFree);
            size = size();
            return true;
        } finally {
            files.close(lowestFree);
        }
    }

    /**
     * Grows the table to hold {@code more} descriptors numbered above {@code fd}, an open descriptor, as far as the
     * open-file limit allows: a duplicate of {@code fd} at that number, closed at once.
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
        String status = ProcText.read(STATUS);
        int at = status.indexOf(SIZE);
        if (at < 0) {
            throw new IOException(STATUS + " has no line 'FDSize:'");
        }
        int from = at + SIZE.length();
        while (from < status.length() && Character.isWhitespace(status.charAt(from))) {
            from++;
        }
        int end = from;
        while (end < status.length() && Character.isDigit(status.charAt(end))) {
            end++;
        }
        return Long.parseLong(status.substring(from, end));
    }

    private static long openFileLimit() {
        try {
            return DescriptorBudget.openFileLimit();
        } catch (IOException | RuntimeException e) {
            return 0; // unknown: no growth
        }
    }
}
