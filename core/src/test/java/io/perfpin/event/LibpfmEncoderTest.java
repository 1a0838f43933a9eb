package io.perfpin.event;

import static io.perfpin.event.LibpfmIntelEncodingTest.raw;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.libpfm.LibpfmException;
import io.perfpin.nativeio.libpfm.LibpfmLibrary;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LibpfmEncoderTest {

    @BeforeAll
    static void libpfmInstalled() {
        assumeTrue(LibpfmEncoder.available(), LibpfmEncoder::unavailableReason);
    }

    @Test
    void kernelModifierCountsTheKernelInsteadOfUserSpace() {
        EventSpec spec = LibpfmEncoder.encode("DTLB_LOAD_MISSES.WALK_ACTIVE:k", "skl");

        assertEquals(raw(0x08, 0x10, 1, false, false), spec.config());
        assertTrue(spec.excludeUser());
        assertFalse(spec.excludeKernel());
    }

    @Test
    void userAndKernelModifiersCountBoth() {
        EventSpec spec = LibpfmEncoder.encode("INST_RETIRED.ANY_P:u:k", "skl");

        assertFalse(spec.excludeUser());
        assertFalse(spec.excludeKernel());
    }

    @Test
    void counterMaskEdgeAndInvertModifiersLandInThePerfevtselBits() {
        EventSpec spec = LibpfmEncoder.encode("CPU_CLK_UNHALTED.THREAD_P:c=3:e:i", "skl");

        assertEquals(raw(0x3C, 0x00, 3, true, true), spec.config());
    }

    @Test
    void libpfmsColonSpellingEncodesLikeIntelsDottedOne() {
        assertEquals(
                LibpfmEncoder.encode("MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM", "icl").config(),
                LibpfmEncoder.encode("MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM", "icl").config());
    }

    @Test
    void offcoreResponseCarriesItsMatrixInConfig1() {
        // The request and response bits go to MSR_OFFCORE_RSP_0, which perf takes from config1.
        EventSpec spec = LibpfmEncoder.encode("OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_LOCAL:SNP_ANY", "skl");

        assertEquals(raw(0xB7, 0x01), spec.config());
        assertTrue(spec.config1() != 0);
    }

    @Test
    void modelsInterleaveWithoutStateLeftBehind() {
        // The same name has different unit masks on the two models (SKL 0x01, ICL 0x11); asking for one model
        // must not leave the other active.
        assertEquals(
                raw(0xC4, 0x01),
                LibpfmEncoder.encode("BR_INST_RETIRED.COND", "skl").config());
        assertEquals(
                raw(0xC4, 0x11),
                LibpfmEncoder.encode("BR_INST_RETIRED.COND", "icl").config());
        assertEquals(
                raw(0xC4, 0x01),
                LibpfmEncoder.encode("BR_INST_RETIRED.COND", "skl").config());
    }

    @Test
    void unknownEventNamesTheTokenAndLibpfmsReason() {
        LibpfmException e =
                assertThrows(LibpfmException.class, () -> LibpfmEncoder.encode("DTLB_LOAD_MISES.WALK_ACTIVE", "skl"));

        assertEquals("DTLB_LOAD_MISES.WALK_ACTIVE", e.token());
        assertTrue(e.eventNotFound());
        assertTrue(e.getMessage().contains("'DTLB_LOAD_MISES.WALK_ACTIVE'"), e.getMessage());
        assertTrue(e.getMessage().contains("event not found"), e.getMessage());
    }

    @Test
    void unknownUnitMaskIsNotAnUnknownEvent() {
        LibpfmException e =
                assertThrows(LibpfmException.class, () -> LibpfmEncoder.encode("DTLB_LOAD_MISSES.WALK_ACTIVEX", "skl"));

        assertFalse(e.eventNotFound());
        assertTrue(e.getMessage().contains("'DTLB_LOAD_MISSES.WALK_ACTIVEX'"), e.getMessage());
        assertTrue(e.getMessage().contains("invalid event attribute"), e.getMessage());
    }

    @Test
    void unknownModelListsTheModelsLibpfmKnows() {
        LibpfmException e = assertThrows(LibpfmException.class, () -> LibpfmEncoder.encode("INST_RETIRED.ANY_P", "sk"));

        assertEquals("sk", e.token());
        assertTrue(e.getMessage().contains("'sk'"), e.getMessage());
        assertTrue(e.getMessage().contains("skl"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void modelsAreLibpfmsCorePmuNames() {
        List<String> models = LibpfmEncoder.models();

        assertTrue(models.containsAll(List.of("skl", "icl", "spr")), models::toString);
        assertFalse(models.contains("perf"), "the generic perf_events PMU is no processor model");
    }

    @Test
    void prefixMustAgreeWithTheForcedModel() {
        assertEquals(
                raw(0xC0, 0x00),
                LibpfmEncoder.encode("skl::INST_RETIRED.ANY_P", "skl").config());

        LibpfmException e =
                assertThrows(LibpfmException.class, () -> LibpfmEncoder.encode("skl::INST_RETIRED.ANY_P", "icl"));
        assertTrue(e.getMessage().contains("icl"), e.getMessage());
    }

    @Test
    void genericPerfEventsEncodeOnThisMachine() {
        // libpfm's "perf" PMU is active wherever the kernel has perf_events.
        EventSpec switches = LibpfmEncoder.encode("perf::PERF_COUNT_SW_CONTEXT_SWITCHES");
        assertEquals(PerfEventAttr.TYPE_SOFTWARE, switches.type());
        assertEquals(3, switches.config(), "PERF_COUNT_SW_CONTEXT_SWITCHES");

        EventSpec cycles = LibpfmEncoder.encode("perf::PERF_COUNT_HW_CPU_CYCLES");
        assertEquals(PerfEventAttr.TYPE_HARDWARE, cycles.type());
        assertEquals(0, cycles.config(), "PERF_COUNT_HW_CPU_CYCLES");
        assertTrue(cycles.excludeKernel());
    }

    @Test
    void thisMachineRejectsAPrefixOfAModelItDoesNotHave() {
        String absent = LibpfmEncoder.withLibrary(library -> library.pmus().stream()
                .filter(p -> !p.present() && p.core())
                .map(LibpfmLibrary.Pmu::name)
                .filter(name -> name.equals("skl") || name.equals("icl"))
                .findFirst()
                .orElseThrow());

        LibpfmException e =
                assertThrows(LibpfmException.class, () -> LibpfmEncoder.encode(absent + "::INST_RETIRED.ANY_P"));
        assertTrue(e.getMessage().contains("not active on this machine"), e.getMessage());
    }

    @Test
    void eventNamesAreBareAndDottedWithoutPmuPrefix() {
        List<String> names = LibpfmEncoder.eventNames("skl");

        assertTrue(names.containsAll(List.of(
                "DTLB_LOAD_MISSES",
                "DTLB_LOAD_MISSES.WALK_ACTIVE",
                "INST_RETIRED.ANY_P",
                "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM")));
        assertFalse(names.contains("DTLB_LOAD_MISSES.C"), "modifiers are no unit masks");
        assertTrue(names.stream().noneMatch(n -> n.contains("::")));
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(null);
        assertEquals(sorted, names);
    }

    @Test
    void everyListedUnitMaskEncodes() {
        for (String model : List.of("skl", "icl")) {
            for (String name : LibpfmEncoder.eventNames(model)) {
                if (name.contains(".")) {
                    assertEquals(name, LibpfmEncoder.encode(name, model).name());
                }
            }
        }
    }

    @Test
    void eventNamesOfThisMachineAreThoseOfItsDetectedPmus() {
        List<String> names = LibpfmEncoder.eventNames(null);

        assertTrue(names.contains("PERF_COUNT_HW_CPU_CYCLES"), "the generic perf_events PMU is always detected");
        LibpfmEncoder.eventNames("skl");
        assertEquals(names, LibpfmEncoder.eventNames(null), "listing another model leaves this machine's alone");
    }
}
