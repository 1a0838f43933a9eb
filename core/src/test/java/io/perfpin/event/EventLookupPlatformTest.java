package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.PmuModel;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The parser as users get it: perf's names, this machine's sysfs, then libpfm4 for this machine's CPU, or for the
 * simulated PMU's model where one counts.
 */
class EventLookupPlatformTest {
    private final EventParser parser = new EventParser();

    @Test
    void aCpuSpecificNameIsEncodedByLibpfm4AndATypoOfItGetsItSuggested() {
        assumeTrue(LibpfmEncoder.available(), LibpfmEncoder.unavailableReason());
        String name = LibpfmEncoder.eventNames(null).stream()
                .filter(n -> n.contains("."))
                .findFirst()
                .orElseThrow();
        EventSpec spec = parser.parse(name);
        assertTrue(spec.sameEncoding(LibpfmEncoder.encode(name)), spec + " vs libpfm4");
        assertEquals(name, spec.name());

        String typo = name.substring(0, 2) + name.substring(3);
        UnknownEventException e = assertThrows(UnknownEventException.class, () -> parser.parse(typo));
        assertTrue(e.nearest().contains(name), e.getMessage());
    }

    /**
     * With a simulated PMU, Intel's names encode for the simulated Skylake whatever this machine's CPU is, so the
     * tlb preset keeps its walk event: ipc, cache, tlb and branch are twelve general-purpose events.
     */
    @Test
    void onASimulatedPmuNamesAreTheSimulatedModelsAndPresetsKeepTheirIntelEvents() {
        assumeTrue(LibpfmEncoder.available(), LibpfmEncoder.unavailableReason());
        PmuModel skylake = PmuModel.named("skylake");
        EventParser simulated = new EventParser(Path.of("/"), EventLookup.platform(skylake), skylake);
        EventSpec walk = simulated.parse(Presets.DTLB_WALK_ACTIVE);
        assertEquals(PerfEventAttr.TYPE_RAW, walk.type());
        assertEquals(0x1001008, walk.config(), "Skylake's encoding: event 0x08, umask 0x10, cmask 1");
        assertTrue(EventLookup.platform(skylake).names().contains(Presets.DTLB_WALK_ACTIVE));

        EventList list = EventList.parse("ipc,cache,tlb,branch", simulated);
        assertEquals(List.of(), list.unsupported(), "nothing left out");
        List<String> generalPurpose = list.names().stream()
                .filter(n -> !n.equals("cycles") && !n.equals("instructions"))
                .toList();
        assertEquals(12, generalPurpose.size(), "general-purpose events: " + generalPurpose);
        assertTrue(generalPurpose.contains(Presets.DTLB_WALK_ACTIVE), generalPurpose.toString());
        assertTrue(list.metrics().stream()
                .filter(m -> m.name().equals("walk-cycles-share"))
                .allMatch(BoundMetric::supported));

        UnknownEventException typo = assertThrows(UnknownEventException.class, () -> simulated.parse("DTLB_LOD"));
        assertTrue(typo.getMessage().contains("the simulated skylake PMU"), typo.getMessage());
    }

    @Test
    void withoutLibpfm4TheReasonSaysHowToInstallIt() {
        assumeTrue(!LibpfmEncoder.available(), "libpfm4 is installed here");
        UnknownEventException e =
                assertThrows(UnknownEventException.class, () -> parser.parse("DTLB_LOAD_MISSES.WALK_COMPLETED"));
        assertTrue(e.getMessage().contains("apt-get install libpfm4"), e.getMessage());
    }
}
