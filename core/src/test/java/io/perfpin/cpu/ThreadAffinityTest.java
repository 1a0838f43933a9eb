package io.perfpin.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** Pins the test's own thread on the real kernel and checks what the kernel then reports. */
class ThreadAffinityTest {
    private final ThreadAffinity affinity = ThreadAffinity.system();

    @Test
    void pinsTheCurrentThreadToEachCpuInTurn() throws Exception {
        int tid = affinity.currentTid();
        CpuSet original = affinity.get(tid);
        assertEquals(original, statusAffinity(tid), "sched_getaffinity agrees with /proc");
        CpuSet targets = CpuTopology.live().allowed().intersect(CpuSet.of(0, 1));
        assertFalse(targets.isEmpty(), "CPU 0 or 1 is allowed here: " + CpuTopology.live());
        try {
            for (int cpu = targets.first(); cpu >= 0; cpu = targets.next(cpu + 1)) {
                affinity.set(tid, CpuSet.of(cpu));
                assertEquals(CpuSet.of(cpu), affinity.get(tid));
                // the kernel migrates the caller before sched_setaffinity returns
                assertEquals(cpu, affinity.currentCpu(), "getcpu after pinning to " + cpu);
                assertEquals(CpuSet.of(cpu), statusAffinity(tid));
            }
        } finally {
            affinity.set(tid, original);
        }
        assertEquals(original, affinity.get(tid));
        assertEquals(original, statusAffinity(tid));
    }

    @Test
    void aSetWithoutAnyUsableCpuFailsWithEinval() {
        int tid = affinity.currentTid();
        CpuSet before = affinity.get(tid);
        NativeException e = assertThrows(NativeException.class, () -> affinity.set(tid, CpuSet.of(CpuSet.MAX_CPU)));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("sched_setaffinity(tid " + tid + ", CPU " + CpuSet.MAX_CPU + ") failed: EINVAL", e.getMessage());
        assertEquals(before, affinity.get(tid), "a refused mask changes nothing");
    }

    @Test
    void anUnknownThreadFailsWithEsrch() {
        NativeException e = assertThrows(NativeException.class, () -> affinity.get(Integer.MAX_VALUE));
        assertEquals(Errno.ESRCH, e.errno());
        assertTrue(e.getMessage().endsWith("failed: ESRCH"), e.getMessage());
    }

    private static CpuSet statusAffinity(int tid) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return CpuSet.parseList(line.substring("Cpus_allowed_list:".length()));
            }
        }
        throw new IllegalStateException("no Cpus_allowed_list for thread " + tid);
    }
}
