package io.perfpin.stats;

import static io.perfpin.stats.StatsFileTest.MILLISECOND;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.CounterSnapshots;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappedFaultsTest {
    @TempDir
    Path dir;

    /**
     * The writes are first made often enough to be compiled, as the sampler's are: from compiled code, JDK 17 throws
     * the fault only at a later entry into the VM, which {@link MappedFaults#surface} is.
     */
    @Test
    void aWriteToATruncatedStatsFileFaultsBeforeTheCodeThatGuardsItEnds() throws Exception {
        Path file = dir.resolve("faulting.stats");
        StatsFile stats = StatsFile.create(file, 1, 0, MILLISECOND, 2, 1, 1);
        try {
            int[] columns = {stats.eventIndex("task-clock"), stats.eventIndex("page-faults")};
            int slot = stats.claimSlot(Published.of(1, 1, "writer", "0"));
            CounterSnapshot counts = CounterSnapshots.of(new long[] {1, 2}, 1, 1);
            for (int i = 0; i < 50_000; i++) {
                stats.publish(slot, Published.counts("0", counts, columns));
                MappedFaults.surface();
            }
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }
            assertThrows(InternalError.class, () -> {
                stats.publish(slot, Published.counts("0", counts, columns));
                MappedFaults.surface();
            });
            MappedFaults.surface(); // nothing is left pending
        } finally {
            stats.abandon();
        }
    }
}
