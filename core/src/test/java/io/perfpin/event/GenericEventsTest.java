package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.nativeio.PerfEventAttr;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class GenericEventsTest {
    private static final Path HEADER = Path.of("/usr/include/linux/perf_event.h");

    /**
     * Numbers from include/uapi/linux/perf_event.h (enum perf_hw_id, perf_sw_ids, perf_hw_cache_*), checked by eye
     * against the header; {@link #numbersMatchTheInstalledKernelHeader()} checks them mechanically where it is.
     */
    @Test
    void hardwareAndSoftwareConfigsAreTheKernelAbi() {
        assertHardware("cycles", 0);
        assertHardware("cpu-cycles", 0);
        assertHardware("instructions", 1);
        assertHardware("cache-references", 2);
        assertHardware("cache-misses", 3);
        assertHardware("branches", 4);
        assertHardware("branch-instructions", 4);
        assertHardware("branch-misses", 5);
        assertHardware("bus-cycles", 6);
        assertHardware("stalled-cycles-frontend", 7);
        assertHardware("stalled-cycles-backend", 8);
        assertHardware("ref-cycles", 9);

        assertSoftware("cpu-clock", 0);
        assertSoftware("task-clock", 1);
        assertSoftware("page-faults", 2);
        assertSoftware("faults", 2);
        assertSoftware("context-switches", 3);
        assertSoftware("cs", 3);
        assertSoftware("cpu-migrations", 4);
        assertSoftware("migrations", 4);
        assertSoftware("minor-faults", 5);
        assertSoftware("major-faults", 6);
        assertSoftware("alignment-faults", 7);
        assertSoftware("emulation-faults", 8);
    }

    @Test
    void cacheMatrixPacksCacheOpAndResult() {
        assertCache("L1-dcache-loads", 0x0);
        assertCache("L1-dcache-load-misses", 0x10000);
        assertCache("L1-dcache-stores", 0x100);
        assertCache("L1-dcache-store-misses", 0x10100);
        assertCache("L1-dcache-prefetches", 0x200);
        assertCache("L1-dcache-prefetch-misses", 0x10200);
        assertCache("L1-icache-load-misses", 0x10001);
        assertCache("LLC-loads", 0x2);
        assertCache("LLC-load-misses", 0x10002);
        assertCache("dTLB-loads", 0x3);
        assertCache("dTLB-load-misses", 0x10003);
        assertCache("iTLB-load-misses", 0x10004);
        assertCache("branch-loads", 0x5);
        assertCache("branch-load-misses", 0x10005);
        assertCache("node-store-misses", 0x10106);
        assertEquals(10 + 7 * 3 * 2 + 9, GenericEvents.names().size());
    }

    @Test
    void namesIgnoreCaseAndKeepTheirCanonicalSpelling() {
        assertEquals(
                "LLC-load-misses",
                GenericEvents.lookup("llc-LOAD-misses").orElseThrow().name());
        assertEquals("cycles", GenericEvents.lookup("CPU-Cycles").orElseThrow().name());
        assertEquals(
                "context-switches", GenericEvents.lookup("cs").orElseThrow().name());
        assertFalse(GenericEvents.lookup("cycle").isPresent());
    }

    @Test
    void hardwareCountsUserOnlyAndSoftwareBothSides() {
        EventSpec cycles = GenericEvents.lookup("cycles").orElseThrow();
        assertTrue(cycles.excludeKernel() && cycles.excludeHv() && !cycles.excludeUser());
        EventSpec cs = GenericEvents.lookup("cs").orElseThrow();
        assertFalse(cs.excludeKernel() || cs.excludeHv() || cs.excludeUser());
    }

    @Test
    void numbersMatchTheInstalledKernelHeader() throws IOException {
        assumeTrue(Files.isReadable(HEADER), "no " + HEADER + " (linux-libc-dev) on this machine");
        Map<String, Long> header = enumValues(Files.readString(HEADER));
        assertHardware("cycles", header.get("PERF_COUNT_HW_CPU_CYCLES"));
        assertHardware("instructions", header.get("PERF_COUNT_HW_INSTRUCTIONS"));
        assertHardware("cache-references", header.get("PERF_COUNT_HW_CACHE_REFERENCES"));
        assertHardware("cache-misses", header.get("PERF_COUNT_HW_CACHE_MISSES"));
        assertHardware("branches", header.get("PERF_COUNT_HW_BRANCH_INSTRUCTIONS"));
        assertHardware("branch-misses", header.get("PERF_COUNT_HW_BRANCH_MISSES"));
        assertHardware("bus-cycles", header.get("PERF_COUNT_HW_BUS_CYCLES"));
        assertHardware("stalled-cycles-frontend", header.get("PERF_COUNT_HW_STALLED_CYCLES_FRONTEND"));
        assertHardware("stalled-cycles-backend", header.get("PERF_COUNT_HW_STALLED_CYCLES_BACKEND"));
        assertHardware("ref-cycles", header.get("PERF_COUNT_HW_REF_CPU_CYCLES"));

        assertSoftware("cpu-clock", header.get("PERF_COUNT_SW_CPU_CLOCK"));
        assertSoftware("task-clock", header.get("PERF_COUNT_SW_TASK_CLOCK"));
        assertSoftware("page-faults", header.get("PERF_COUNT_SW_PAGE_FAULTS"));
        assertSoftware("context-switches", header.get("PERF_COUNT_SW_CONTEXT_SWITCHES"));
        assertSoftware("cpu-migrations", header.get("PERF_COUNT_SW_CPU_MIGRATIONS"));
        assertSoftware("minor-faults", header.get("PERF_COUNT_SW_PAGE_FAULTS_MIN"));
        assertSoftware("major-faults", header.get("PERF_COUNT_SW_PAGE_FAULTS_MAJ"));
        assertSoftware("alignment-faults", header.get("PERF_COUNT_SW_ALIGNMENT_FAULTS"));
        assertSoftware("emulation-faults", header.get("PERF_COUNT_SW_EMULATION_FAULTS"));

        String[] caches = {"L1D", "L1I", "LL", "DTLB", "ITLB", "BPU", "NODE"};
        String[] names = {"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node"};
        String[][] ops = {
            {"READ", "load", "loads"}, {"WRITE", "store", "stores"}, {"PREFETCH", "prefetch", "prefetches"}
        };
        long access = header.get("PERF_COUNT_HW_CACHE_RESULT_ACCESS");
        long miss = header.get("PERF_COUNT_HW_CACHE_RESULT_MISS");
        for (int c = 0; c < caches.length; c++) {
            long id = header.get("PERF_COUNT_HW_CACHE_" + caches[c]);
            for (String[] op : ops) {
                long opId = header.get("PERF_COUNT_HW_CACHE_OP_" + op[0]);
                assertCache(names[c] + "-" + op[2], id | (opId << 8) | (access << 16));
                assertCache(names[c] + "-" + op[1] + "-misses", id | (opId << 8) | (miss << 16));
            }
        }
        assertEquals(header.get("PERF_TYPE_HARDWARE"), (long) PerfEventAttr.TYPE_HARDWARE);
        assertEquals(header.get("PERF_TYPE_SOFTWARE"), (long) PerfEventAttr.TYPE_SOFTWARE);
        assertEquals(header.get("PERF_TYPE_HW_CACHE"), (long) PerfEventAttr.TYPE_HW_CACHE);
        assertEquals(header.get("PERF_TYPE_RAW"), (long) PerfEventAttr.TYPE_RAW);
    }

    /** Explicit {@code NAME = number,} enumerators, which is how the header spells every ABI value used here. */
    private static Map<String, Long> enumValues(String header) {
        Map<String, Long> values = new HashMap<>();
        Matcher m = Pattern.compile("\\b(PERF_\\w+)\\s*=\\s*(\\d+)\\s*,").matcher(header);
        while (m.find()) {
            values.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return values;
    }

    private static void assertHardware(String name, long config) {
        assertEncoding(name, PerfEventAttr.TYPE_HARDWARE, config);
    }

    private static void assertSoftware(String name, long config) {
        assertEncoding(name, PerfEventAttr.TYPE_SOFTWARE, config);
    }

    private static void assertCache(String name, long config) {
        assertEncoding(name, PerfEventAttr.TYPE_HW_CACHE, config);
    }

    private static void assertEncoding(String name, int type, long config) {
        EventSpec spec = GenericEvents.lookup(name).orElseThrow(() -> new AssertionError("no " + name));
        assertEquals(type, spec.type(), name);
        assertEquals(config, spec.config(), name);
    }
}
