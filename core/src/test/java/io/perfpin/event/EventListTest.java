package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EventListTest {
    /** What libpfm4 4.13 encodes for these names with LIBPFM_FORCE_PMU=skl, standing in for the library. */
    private static final EventLookup SKYLAKE_LIBPFM = name -> {
        return switch (name) {
            case "DTLB_LOAD_MISSES.WALK_ACTIVE" -> EventSpec.userOnly(name, 4, 0x1001008, 0, 0);
            case "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS" -> EventSpec.userOnly(name, 4, 0x107, 0, 0);
            default -> throw new UnknownEventException(name);
        };
    };

    private final EventParser skylake = Fixtures.parser("skylake");

    @Test
    void splitKeepsCommasInsidePmuSlashes() {
        assertEquals(
                List.of("ipc", "cpu/event=0x08,umask=0x0e/u", "task-clock"),
                EventList.split("ipc, cpu/event=0x08,umask=0x0e/u ,task-clock"));
        assertEquals(List.of("cpu/a=1,b/", "msr/tsc/"), EventList.split("cpu/a=1,b/,msr/tsc/"));
        assertThrows(InvalidEventException.class, () -> EventList.split("cycles,,instructions"));
        assertThrows(InvalidEventException.class, () -> EventList.split("cycles,"));
        assertThrows(InvalidEventException.class, () -> EventList.split("cpu/event=1,cycles"));
    }

    @Test
    void presetsExpandInOrderWithoutDuplicates() {
        EventList list = EventList.parse("ipc,branch,cs,context-switches,cpu-cycles", skylake);
        assertEquals(List.of("cycles", "instructions", "branches", "branch-misses", "context-switches"), names(list));
        assertEquals(
                List.of("ipc", "branch"),
                list.presets().stream().map(Preset::name).collect(Collectors.toList()));
        assertEquals(
                List.of("ipc", "cpi", "branch-miss-ratio", "branch-mpki"),
                list.metrics().stream().map(BoundMetric::name).collect(Collectors.toList()));
        assertTrue(list.unsupported().isEmpty());
    }

    @Test
    void boundMetricsReadTheirCountsByPosition() {
        EventList list = EventList.parse("task-clock,ipc,sched", skylake);
        assertEquals(
                List.of(
                        "task-clock",
                        "cycles",
                        "instructions",
                        "context-switches",
                        "cpu-migrations",
                        "page-faults",
                        "minor-faults",
                        "major-faults"),
                names(list));
        double[] counts = {5e8, 1e9, 3e9, 200, 4, 1000, 990, 10};
        assertEquals(3.0, metric(list, "ipc").evaluate(counts, Double.NaN));
        assertEquals(0.5, metric(list, "cpu-utilisation").evaluate(counts, 1e9));
        assertEquals(200.0, metric(list, "cs-per-sec").evaluate(counts, 1e9));
        assertTrue(Double.isNaN(metric(list, "cs-per-sec").evaluate(counts, Double.NaN)));
        assertTrue(metric(list, "cs-per-sec").needsWallTime());
        counts[1] = Double.NaN; // cycles could not be counted on this machine
        assertTrue(Double.isNaN(metric(list, "ipc").evaluate(counts, 1e9)));
    }

    @Test
    void intelOnlyEventsAreReportedUnsupportedWithoutFailingThePreset() {
        EventList list = EventList.parse("tlb", skylake);
        assertEquals(
                List.of("dTLB-loads", "dTLB-load-misses", "iTLB-load-misses", "instructions", "cycles"), names(list));
        assertEquals(
                List.of(new UnsupportedEvent(
                        "DTLB_LOAD_MISSES.WALK_ACTIVE", "tlb", "Intel only; libpfm4 lookup not wired")),
                list.unsupported());
        BoundMetric share = metric(list, "walk-cycles-share");
        assertFalse(share.supported());
        assertEquals("DTLB_LOAD_MISSES.WALK_ACTIVE: Intel only; libpfm4 lookup not wired", share.unsupportedReason());
        assertEquals(BoundMetric.MISSING, share.inputIndices()[0]);
        assertTrue(Double.isNaN(share.evaluate(new double[] {1, 1, 1, 1, 1}, 1)));
        assertTrue(metric(list, "dTLB-mpki").supported());
    }

    @Test
    void intelOnlyEventsCountWhereTheLookupHasThem() {
        EventList list = EventList.parse("tlb,aliasing", new EventParser(Fixtures.sysfs("skylake"), SKYLAKE_LIBPFM));
        assertEquals(
                List.of(
                        "dTLB-loads",
                        "dTLB-load-misses",
                        "iTLB-load-misses",
                        "instructions",
                        "cycles",
                        "DTLB_LOAD_MISSES.WALK_ACTIVE",
                        "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS"),
                names(list));
        double[] counts = {1e6, 1e4, 500, 2e7, 4e7, 2e6, 100};
        assertEquals(0.05, metric(list, "walk-cycles-share").evaluate(counts, 1), 1e-12);
        assertEquals(0.5, metric(list, "dTLB-mpki").evaluate(counts, 1), 1e-12);
        assertEquals(0.005, metric(list, "4k-alias-pki").evaluate(counts, 1), 1e-12);
        assertEquals(
                "not in this CPU's event tables",
                EventList.parse("sharing", new EventParser(Fixtures.sysfs("skylake"), SKYLAKE_LIBPFM))
                        .unsupported()
                        .get(0)
                        .reason()
                        .substring("Intel only; ".length()));
    }

    @Test
    void presetModifiersApplyToAllItsEvents() {
        EventList list = EventList.parse("ipc:uk,ipc", skylake);
        assertEquals(List.of("cycles:uk", "instructions:uk", "cycles", "instructions"), names(list));
        assertEquals(
                List.of("ipc:uk", "ipc:uk", "ipc", "ipc"),
                list.metrics().stream().map(BoundMetric::preset).collect(Collectors.toList()));
        assertArrayEquals(new int[] {1, 0}, list.metrics().get(0).inputIndices());
        assertArrayEquals(new int[] {3, 2}, list.metrics().get(2).inputIndices());
    }

    @Test
    void unknownTokensSuggestEventsAndPresets() {
        UnknownEventException e =
                assertThrows(UnknownEventException.class, () -> EventList.parse("ipc,shed,cycles", skylake));
        assertEquals("shed", e.token());
        assertEquals("sched", e.nearest().get(0));
        assertThrows(UnknownEventException.class, () -> EventList.parse("ipc:q", skylake));
    }

    @Test
    void pmuEventsMixWithNamesAndPresets() {
        EventList list = EventList.parse("cpu/event=0x08,umask=0x0e,cmask=1/,ipc,cpu/cpu-cycles/", skylake);
        assertEquals(
                List.of("cpu/event=0x08,umask=0x0e,cmask=1/", "cycles", "instructions", "cpu/cpu-cycles/"),
                names(list));
    }

    private static List<String> names(EventList list) {
        return list.events().stream().map(EventSpec::name).collect(Collectors.toList());
    }

    private static BoundMetric metric(EventList list, String name) {
        return list.metrics().stream()
                .filter(m -> m.name().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
