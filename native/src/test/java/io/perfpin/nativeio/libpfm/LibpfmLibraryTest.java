package io.perfpin.nativeio.libpfm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The struct layouts of {@link LibpfmAbi} read against libpfm itself: fields that must agree with each other
 * or with pfmlib.h's constants only do when every offset is right.
 */
class LibpfmLibraryTest {
    /** pfm_pmu_t values from perfmon/pfmlib.h; the enum is append-only, so they hold for every release. */
    private static final int PFM_PMU_INTEL_SKL = 200;

    private static final int PFM_PMU_INTEL_ICL = 447;
    private static final int PFM_PMU_INTEL_SPR = 512;

    /** Loaded once: libpfm keeps its state process-wide, and nothing else in this JVM loads it. */
    private static LibpfmLibrary library;

    private static String unavailable;

    @BeforeAll
    static void load() {
        try {
            library = LibpfmLibrary.load(LibpfmLibrary.SONAME);
        } catch (LinkageError e) {
            unavailable = LibpfmLibrary.unavailableReason(LibpfmLibrary.SONAME, e);
        }
    }

    @Test
    void pmuInfoCarriesThePmuIdentifiersOfPfmlibH() {
        assumeTrue(library != null, unavailable);

        for (var expected : List.of(
                List.of("skl", PFM_PMU_INTEL_SKL),
                List.of("icl", PFM_PMU_INTEL_ICL),
                List.of("spr", PFM_PMU_INTEL_SPR))) {
            LibpfmLibrary.Pmu pmu = library.pmu((String) expected.get(0));
            assertEquals(expected.get(1), pmu.id(), pmu::toString);
            assertEquals(expected.get(0), pmu.name());
            assertEquals(LibpfmAbi.PFM_PMU_TYPE_CORE, pmu.type());
        }
    }

    @Test
    void eventWalkAgreesWithThePmusEventCount() {
        assumeTrue(library != null, unavailable);

        LibpfmLibrary.Pmu skl = library.pmu("skl");
        List<LibpfmLibrary.Event> events = library.events(skl);

        assertEquals(skl.eventCount(), events.size());
        assertEquals(skl.firstEvent(), events.get(0).idx(), "pfm_event_info_t.idx is the index asked for");
        Set<Integer> indexes = new HashSet<>();
        for (LibpfmLibrary.Event event : events) {
            assertEquals(PFM_PMU_INTEL_SKL, event.pmu(), event::toString);
            assertTrue(indexes.add(event.idx()), event::toString);
        }
        LibpfmLibrary.Event instRetired = events.stream()
                .filter(e -> e.name().equals("INST_RETIRED"))
                .findFirst()
                .orElseThrow();
        assertTrue(library.unitMasks(instRetired).contains("ANY_P"));
    }

    @Test
    void presentFlagMarksTheDetectedPmus() {
        assumeTrue(library != null, unavailable);

        List<LibpfmLibrary.Pmu> pmus = library.pmus();

        assertTrue(pmus.stream().anyMatch(p -> p.name().equals("perf") && p.present()));
        assertFalse(
                pmus.stream().allMatch(LibpfmLibrary.Pmu::present),
                "libpfm supports far more PMUs than one machine has");
    }

    @Test
    void missingLibrarySaysHowToInstallIt() {
        String soname = "libpfm-perfpin-absent.so.4";

        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> LibpfmLibrary.load(soname));
        String reason = LibpfmLibrary.unavailableReason(soname, e);

        assertTrue(reason.contains(soname), reason);
        assertTrue(reason.contains("apt-get install libpfm4"), reason);
        assertTrue(reason.contains("dnf install libpfm"), reason);
        assertFalse(reason.contains("\n"), reason);
    }
}
