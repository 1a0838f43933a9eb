package io.perfpin.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.FileCalls;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** This JVM's own descriptor table, as {@code /proc/self/status} says its size, around the sampler's look. */
class DescriptorTableTest {
    private static final int PATH_ONLY = FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_CLOEXEC;

    private final FileCalls files = new FileCalls(Backends.syscalls());

    @Test
    void aTableAQuarterFullDoublesAsTheKernelWouldGrowItAndTheLookLeavesNoDescriptor() throws IOException {
        DescriptorTable table = new DescriptorTable(Backends.syscalls());
        long size = settledRoomToDouble(table);
        List<Integer> held = new ArrayList<>();
        try {
            // descriptors of this test fill the table up to a quarter of it, lowest first
            while (lowestFree() < size / 4) {
                held.add(open());
            }
            int lowest = lowestFree();

            assertTrue(table.keepAhead(-1), "grown at " + lowest + " of " + size);

            assertEquals(2 * size, DescriptorTable.size(), "the kernel's next size, from " + size);
            assertEquals(size / 2, table.mark(), "a quarter of the table grown");
            assertEquals(
                    Set.of(),
                    KernelReadinessTest.openFrom(size),
                    "the duplicate that grew it, beyond the old table, is closed");
            assertFalse(table.keepAhead(-1), "a table grown is an eighth full");
            assertEquals(2 * size, DescriptorTable.size());
        } finally {
            for (int fd : held) {
                files.close(fd);
            }
        }
    }

    @Test
    void aTableLessThanAQuarterFullIsLeftAsItIs() throws IOException {
        DescriptorTable table = new DescriptorTable(Backends.syscalls());
        assertEquals(0, table.mark(), "the first counters opened ask for the first look");
        settle(table);
        long size = DescriptorTable.size();

        assertFalse(table.keepAhead(-1));

        assertEquals(size, DescriptorTable.size());
        assertEquals(size / 4, table.mark());
    }

    /**
     * A descriptor open at a quarter of the table grows it, though lower ones are free, as when descriptors below a
     * thread's counters closed since they opened.
     */
    @Test
    void aDescriptorOpenAtAQuarterGrowsTheTableWhateverIsFreeBelowIt() throws IOException {
        DescriptorTable table = new DescriptorTable(Backends.syscalls());
        long size = settledRoomToDouble(table);

        assertFalse(table.keepAhead((int) size / 4 - 1), "below a quarter");
        assertTrue(table.keepAhead((int) size / 4), "at a quarter");

        assertEquals(2 * size, DescriptorTable.size());
        assertEquals(
                Set.of(),
                KernelReadinessTest.openFrom(size),
                "the duplicate that grew it, beyond the old table, is closed");
    }

    /**
     * The table as the look leaves it, whatever this JVM had open before: grown until less than a quarter full, which
     * takes a step or two at most (each doubles it), or as far as the open-file limit lets it.
     */
    private static void settle(DescriptorTable table) throws IOException {
        for (int i = 0; i < 8 && table.keepAhead(-1); i++) {
            // grown: look again
        }
    }

    /** The table's size once settled, where the open-file limit lets it double; the test is skipped otherwise. */
    private static long settledRoomToDouble(DescriptorTable table) throws IOException {
        settle(table);
        long size = DescriptorTable.size();
        assumeTrue(2 * size < DescriptorBudget.openFileLimit(), "an open-file limit above twice the table's " + size);
        return size;
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
