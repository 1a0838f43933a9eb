package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.perfpin.nativeio.PerfEventAttr;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * libpfm's encodings under forced Intel models against Intel's published event codes. Expected values come
 * from Intel, not from libpfm:
 * <ul>
 *   <li>[SDM] Intel 64 and IA-32 Architectures SDM Vol. 3B, "Pre-defined Architectural Performance Events"
 *       table: UnHalted Core Cycles 3CH/00H, Instruction Retired C0H/00H, LLC Reference 2EH/4FH, LLC Misses
 *       2EH/41H, Branch Instruction Retired C4H/00H, Branch Misses Retired C5H/00H; valid on every model;</li>
 *   <li>[SKL] intel/perfmon SKL/events/skylake_core.json, V57 (published 06/06/2023);</li>
 *   <li>[ICL] intel/perfmon ICL/events/icelake_core.json, V1.15 (published 08/05/2022).</li>
 * </ul>
 * The raw config is IA32_PERFEVTSELx without its USR/OS/INT/EN bits (SDM Vol. 3B, "Architectural
 * Performance Monitoring Version 1"): event select 7:0, unit mask 15:8, edge 18, invert 23, counter mask
 * 31:24. libpfm leaves the privilege bits out of config and expresses them as exclude_* instead.
 */
class LibpfmIntelEncodingTest {

    @BeforeAll
    static void libpfmInstalled() {
        assumeTrue(LibpfmEncoder.available(), LibpfmEncoder::unavailableReason);
    }

    static Stream<Arguments> publishedCodes() {
        return Stream.of(
                // Skylake client.
                arguments("skl", "INST_RETIRED.ANY_P", raw(0xC0, 0x00)), // SDM
                arguments("skl", "CPU_CLK_UNHALTED.THREAD_P", raw(0x3C, 0x00)), // SKL, SDM
                arguments("skl", "CPU_CLK_UNHALTED.RING0_TRANS", raw(0x3C, 0x00, 1, true, false)), // SKL
                arguments("skl", "LD_BLOCKS.STORE_FORWARD", raw(0x03, 0x02)), // SKL
                arguments("skl", "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS", raw(0x07, 0x01)), // SKL
                arguments("skl", "DTLB_LOAD_MISSES.WALK_COMPLETED", raw(0x08, 0x0E)), // SKL
                arguments("skl", "DTLB_LOAD_MISSES.WALK_ACTIVE", raw(0x08, 0x10, 1, false, false)), // SKL
                arguments("skl", "DTLB_LOAD_MISSES.STLB_HIT", raw(0x08, 0x20)), // SKL
                arguments("skl", "LONGEST_LAT_CACHE.MISS", raw(0x2E, 0x41)), // SKL, SDM
                arguments("skl", "LONGEST_LAT_CACHE.REFERENCE", raw(0x2E, 0x4F)), // SKL, SDM
                arguments("skl", "L1D_PEND_MISS.PENDING_CYCLES", raw(0x48, 0x01, 1, false, false)), // SKL
                arguments("skl", "DTLB_STORE_MISSES.WALK_COMPLETED", raw(0x49, 0x0E)), // SKL
                arguments("skl", "L1D.REPLACEMENT", raw(0x51, 0x01)), // SKL
                arguments(
                        "skl",
                        "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_L3_MISS_DEMAND_DATA_RD",
                        raw(0x60, 0x10, 1, false, false)), // SKL
                arguments("skl", "IDQ.MS_SWITCHES", raw(0x79, 0x30, 1, true, false)), // SKL
                arguments("skl", "MACHINE_CLEARS.COUNT", raw(0xC3, 0x01, 1, true, false)), // SKL
                arguments("skl", "MACHINE_CLEARS.MEMORY_ORDERING", raw(0xC3, 0x02)), // SKL
                arguments("skl", "BR_INST_RETIRED.ALL_BRANCHES", raw(0xC4, 0x00)), // SKL, SDM
                arguments("skl", "BR_INST_RETIRED.CONDITIONAL", raw(0xC4, 0x01)), // SKL
                arguments("skl", "BR_MISP_RETIRED.ALL_BRANCHES", raw(0xC5, 0x00)), // SKL, SDM
                arguments("skl", "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM", raw(0xD2, 0x04)), // SKL

                // Ice Lake client.
                arguments("icl", "INST_RETIRED.ANY_P", raw(0xC0, 0x00)), // SDM
                arguments("icl", "CPU_CLK_UNHALTED.THREAD_P", raw(0x3C, 0x00)), // SDM
                arguments("icl", "LONGEST_LAT_CACHE.MISS", raw(0x2E, 0x41)), // SDM
                arguments("icl", "DTLB_LOAD_MISSES.WALK_COMPLETED_4K", raw(0x08, 0x02)), // ICL
                arguments("icl", "DTLB_LOAD_MISSES.WALK_PENDING", raw(0x08, 0x10)), // ICL
                arguments("icl", "DTLB_LOAD_MISSES.STLB_HIT", raw(0x08, 0x20)), // ICL
                arguments("icl", "DTLB_STORE_MISSES.STLB_HIT", raw(0x49, 0x20)), // ICL
                arguments("icl", "L1D.REPLACEMENT", raw(0x51, 0x01)), // ICL
                arguments("icl", "ITLB_MISSES.STLB_HIT", raw(0x85, 0x20)), // ICL
                arguments("icl", "EXE_ACTIVITY.BOUND_ON_STORES", raw(0xA6, 0x40, 2, false, false)), // ICL
                arguments("icl", "UOPS_EXECUTED.THREAD", raw(0xB1, 0x01)), // ICL
                arguments("icl", "MACHINE_CLEARS.MEMORY_ORDERING", raw(0xC3, 0x02)), // ICL
                arguments("icl", "BR_INST_RETIRED.ALL_BRANCHES", raw(0xC4, 0x00)), // ICL, SDM
                arguments("icl", "BR_INST_RETIRED.COND", raw(0xC4, 0x11)), // ICL
                arguments("icl", "BR_MISP_RETIRED.ALL_BRANCHES", raw(0xC5, 0x00)), // ICL, SDM
                arguments("icl", "BR_MISP_RETIRED.COND", raw(0xC5, 0x11)), // ICL
                arguments("icl", "FP_ARITH_INST_RETIRED.512B_PACKED_SINGLE", raw(0xC7, 0x80)), // ICL
                arguments("icl", "MEM_LOAD_RETIRED.L3_MISS", raw(0xD1, 0x20)), // ICL
                arguments("icl", "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM", raw(0xD2, 0x04)), // ICL

                // Sapphire Rapids: the architectural events.
                arguments("spr", "INST_RETIRED.ANY_P", raw(0xC0, 0x00)), // SDM
                arguments("spr", "CPU_CLK_UNHALTED.THREAD_P", raw(0x3C, 0x00)), // SDM
                arguments("spr", "LONGEST_LAT_CACHE.MISS", raw(0x2E, 0x41)), // SDM
                arguments("spr", "LONGEST_LAT_CACHE.REFERENCE", raw(0x2E, 0x4F)), // SDM
                arguments("spr", "BR_INST_RETIRED.ALL_BRANCHES", raw(0xC4, 0x00)), // SDM
                arguments("spr", "BR_MISP_RETIRED.ALL_BRANCHES", raw(0xC5, 0x00))); // SDM
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("publishedCodes")
    void encodesIntelsPublishedCodes(String model, String event, long expectedConfig) {
        EventSpec spec = LibpfmEncoder.encode(event, model);

        assertAll(
                () -> assertEquals(event, spec.name()),
                () -> assertEquals(PerfEventAttr.TYPE_RAW, spec.type(), "core events are PERF_TYPE_RAW"),
                () -> assertEquals(
                        expectedConfig,
                        spec.config(),
                        () -> "config 0x" + Long.toHexString(spec.config()) + ", Intel: 0x"
                                + Long.toHexString(expectedConfig)),
                () -> assertEquals(0, spec.config1()),
                () -> assertEquals(0, spec.config2()),
                () -> assertFalse(spec.excludeUser(), "user space counts by default"),
                () -> assertTrue(spec.excludeKernel(), "the kernel is excluded by default"),
                // Intel cores cannot filter the hypervisor level, and libpfm leaves exclude_hv clear for them.
                () -> assertFalse(spec.excludeHv()));
    }

    static long raw(int eventSelect, int unitMask) {
        return raw(eventSelect, unitMask, 0, false, false);
    }

    /** IA32_PERFEVTSELx as perf's raw config, without USR/OS/INT/EN. */
    static long raw(int eventSelect, int unitMask, int counterMask, boolean edge, boolean invert) {
        return eventSelect
                | (long) unitMask << 8
                | (edge ? 1L << 18 : 0)
                | (invert ? 1L << 23 : 0)
                | (long) counterMask << 24;
    }
}
