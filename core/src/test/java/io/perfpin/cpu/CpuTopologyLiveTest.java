package io.perfpin.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.testkit.TestJvm;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The topology of the machine the tests run on agrees with what other tools say about it. */
class CpuTopologyLiveTest {
    @Test
    void onlineCpusAreThoseOfProcCpuinfo() throws Exception {
        CpuTopology topology = CpuTopology.live();
        int[] processors = Files.readAllLines(Paths.get("/proc/cpuinfo")).stream()
                .filter(line -> line.startsWith("processor"))
                .mapToInt(line ->
                        Integer.parseInt(line.substring(line.indexOf(':') + 1).strip()))
                .toArray();
        assertEquals(CpuSet.of(processors), topology.online());
    }

    @Test
    void allowedCpusAreAsManyAsNprocSees() throws Exception {
        // nproc reports these variables instead of the affinity mask when they are set
        List<String> count = TestJvm.program("env", "-u", "OMP_NUM_THREADS", "-u", "OMP_THREAD_LIMIT", "nproc")
                .run();
        assertEquals(
                Integer.parseInt(count.get(0).strip()),
                CpuTopology.live().allowed().size());
    }

    @Test
    void everyOnlineCpuHasACoreAndAPackage() {
        CpuTopology topology = CpuTopology.live();
        List<CpuSet> cores = topology.cores();
        assertEquals(
                topology.online().size(), cores.stream().mapToInt(CpuSet::size).sum(), "cores partition the CPUs");
        topology.online().forEach(cpu -> {
            assertTrue(topology.siblings(cpu).contains(cpu));
            assertTrue(topology.packageCpus(cpu).containsAll(topology.siblings(cpu)));
        });
        assertTrue(topology.online().containsAll(topology.allowed()));
    }

    @Test
    void anotherProcessesAllowedCpusAreItsOwnAffinity() throws Exception {
        assumeTrue(CpuTopology.live().allowed().contains(1), "needs CPU 1");
        Process sleep = new ProcessBuilder("taskset", "-c", "1", "sleep", "30").start();
        try {
            // taskset execs sleep once it has set its affinity: until then the process still has ours.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!CpuTopology.ofProcess(sleep.pid()).affinity().equals(CpuSet.of(1))) {
                assertTrue(System.nanoTime() < deadline, "taskset -c 1 never took effect");
                Thread.sleep(5);
            }
            CpuTopology topology = CpuTopology.ofProcess(sleep.pid());
            assertEquals(CpuSet.of(1), topology.allowed());
            assertEquals(CpuTopology.live().cgroupCpus(), topology.cgroupCpus(), "a child stays in our cgroup");
        } finally {
            sleep.destroyForcibly().waitFor();
        }
    }
}
