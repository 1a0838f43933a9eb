package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.cpu.CpuTopology;
import org.junit.jupiter.api.Test;

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
}
