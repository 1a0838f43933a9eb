package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.cpu.CpuReservation;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.testkit.SystemProperty;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyCommandTest {

    @Test
    void showsThisMachinesCpusAsTheTopologyReaderSeesThem() {
        CpuTopology topology = CpuTopology.live();
        CliRun run = CliRun.capture(() -> Perfpin.run("topology"));
        assertEquals(ExitCode.OK, run.code, run.err);
        assertTrue(run.out.startsWith("online      " + topology.online() + "\n"), run.out);
        assertTrue(run.out.contains("allowed     " + topology.allowed()), run.out);
        assertEquals(topology.cores().size(), run.out.split("\n  core ", -1).length - 1, run.out);
        assertTrue(run.out.contains("reservations"), run.out);
    }

    /**
     * Reservations as their lock files name them: this process's by its pid, tid and thread; one held through a lock
     * file whose line names a process that does not exist, as one that has not named itself.
     */
    @Test
    void listsEachReservationsHolderAsItsFileNamesIt(@TempDir Path dir) throws Exception {
        FileCalls calls = FileCalls.ofProcess();
        try (SystemProperty own = SystemProperty.set(PerfpinDirectory.PROPERTY, dir.toString());
                CpuReservation held = CpuReservations.openDefault()
                        .tryReserve(CpuSet.of(0), 7, "topology test")
                        .orElseThrow()) {
            // above the kernel's largest pid, under a lock of this process's own, through an open of the file's
            Path other = Files.writeString(
                    CpuReservations.openDefault().directory().resolve("cpu-1.lock"), "4194305 1 gone\n");
            int fd = calls.openat(FileCalls.AT_FDCWD, other.toString(), FileCalls.O_RDWR | FileCalls.O_CLOEXEC, 0);
            try {
                assertEquals(0, calls.tryLockWhole(fd));
                CliRun run = CliRun.capture(() -> Perfpin.run("topology"));
                assertEquals(ExitCode.OK, run.code, run.err);
                assertTrue(
                        run.out.contains("\n  cpu 0   pid "
                                + ProcessHandle.current().pid() + "  tid 7  thread \"topology test\"\n"),
                        run.out);
                assertTrue(
                        run.out.contains(
                                "\n  cpu 1   held by a process that has not named itself in this pid namespace\n"),
                        run.out);
            } finally {
                calls.close(fd);
            }
        }
    }
}
