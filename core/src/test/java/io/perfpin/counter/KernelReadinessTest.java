package io.perfpin.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.nativeio.Backends;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The kernel's descriptor table, as {@code /proc/self/status} says its size, before and after. */
class KernelReadinessTest {
    /**
     * One test, not two: a table never shrinks, so the second step, to the open-file limit, would leave no room for
     * the first in a test that ran after it.
     */
    @Test
    void theTableGrowsAsAskedThenStopsBelowTheOpenFileLimitAndTheDuplicateIsClosed() throws IOException {
        int before = tableSize();
        long limit = DescriptorBudget.openFileLimit();
        int more = 2 * before; // more than the table holds: it must grow
        assumeTrue(limit > 4L * before && limit <= 1 << 20, "an open-file limit the table can double to, and reach");

        KernelReadiness.prepare(Backends.syscalls(), more);

        assertTrue(tableSize() > more, "FDSize " + tableSize() + ", from " + before + ", for " + more + " more");
        assertEquals(Set.of(), openFrom(before), "the duplicate, numbered beyond the old table, is closed");

        // fcntl refuses a number at or past the limit: the growth stops below it rather than fail whole
        KernelReadiness.prepare(Backends.syscalls(), Integer.MAX_VALUE / 2);

        assertTrue(tableSize() >= limit, "FDSize " + tableSize() + " for a limit of " + limit);
        assertEquals(Set.of(), openFrom(more), "nothing left open at the top");
    }

    @Test
    void noMoreDescriptorsAskedLeavesTheTableAsItIs() throws IOException {
        int before = tableSize();

        KernelReadiness.prepare(Backends.syscalls(), 0);

        assertEquals(before, tableSize());
    }

    /** {@code FDSize:}, the number of entries of this process's descriptor table. */
    private static int tableSize() throws IOException {
        List<String> status = Files.readAllLines(Path.of("/proc/self/status"));
        return status.stream()
                .filter(line -> line.startsWith("FDSize:"))
                .map(line -> Integer.parseInt(line.substring("FDSize:".length()).strip()))
                .findFirst()
                .orElseThrow();
    }

    /**
     * The open descriptors numbered {@code lowest} or more. Only these: the test JVM's other threads open and close
     * descriptors too, at the lowest free numbers.
     */
    static Set<Integer> openFrom(long lowest) {
        Set<Integer> open = new TreeSet<>();
        for (String fd : new File("/proc/self/fd").list()) {
            if (Integer.parseInt(fd) >= lowest) {
                open.add(Integer.parseInt(fd));
            }
        }
        return open;
    }
}
