package io.perfpin.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.FileCalls;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** This JVM's own descriptor table, as {@code /proc/self/status} says its size, around the sampler's look. */
class DescriptorTableTest {
    private static final int PATH_ONLY = FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_CLOEXEC;

    private final FileCalls files = new FileCalls(Backends.syscalls());

    @Test
    void aTableHalfFullDoublesAsTheKernelWouldGrowItAndTheLookLeavesNoDescriptor() throws IOException {
        DescriptorTable table = new DescriptorTable(Backends.syscalls());
        settle(table);
        long size = DescriptorTable.size();
        assumeTrue(2 * size < DescriptorBudget.openFileLimit(), "an open-file limit above twice the table's " + size);
        List<Integer> held = new ArrayList<>();
        try {
            // descriptors of this test fill the table up to its half, lowest first
            while (lowestFree() < size / 2) {
                held.add(open());
            }
            int lowest = lowestFree();

            assertTrue(table.keepAhead(), "grown at " + lowest + " of " + size);

            assertEquals(2 * size, DescriptorTable.size(), "the kernel's next size, from " + size);
            assertEquals(Set.of(), openFrom(size), "the duplicate that grew it, beyond the old table, is closed");
            assertFalse(table.keepAhead(), "a table grown is no longer half full");
            assertEquals(2 * size, DescriptorTable.size());
        } finally {
            for (int fd : held) {
                files.close(fd);
            }
        }
    }

    @Test
    void aTableLessThanHalfFullIsLeftAsItIs() throws IOException {
        DescriptorTable table = new DescriptorTable(Backends.syscalls());
        settle(table);
        long size = DescriptorTable.size();
        int lowest = lowestFree();
        assumeTrue(lowest < size / 2, "this JVM's descriptors below half of its table");

        assertFalse(table.keepAhead());

        assertEquals(size, DescriptorTable.size());
    }

    /**
     * The table as the look leaves it, whatever this JVM had open before: grown until less than half full, which
     * takes a step or two at most (each doubles it), or as far as the open-file limit lets it.
     */
    private static void settle(DescriptorTable table) throws IOException {
        for (int i = 0; i < 8 && table.keepAhead(); i++) {
            // grown: look again
        }
    }

    /**
     * The open descriptors numbered {@code lowest} or more. Only these: the test JVM's other threads open and close
     * descriptors too, at the lowest free numbers.
     */
    private static Set<Integer> openFrom(long lowest) {
        Set<Integer> open = new TreeSet<>();
        for (String fd : new File("/proc/self/fd").list()) {
            if (Integer.parseInt(fd) >= lowest) {
                open.add(Integer.parseInt(fd));
            }
        }
        return open;
    }

    /** The number the next descriptor gets: one opened and closed. */
    private int lowestFree() {
        int fd = open();
        files.close(fd);
        return fd;
    }

    private int open() {
        int fd = files.openat(FileCalls.AT_FDCWD, "/", PATH_ONLY, 0);
        assertTrue(fd >= 0, "open /: " + fd);
        return fd;
    }
}
