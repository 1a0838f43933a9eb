package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.PmuModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventParserTest {
    private static final int RAW = PerfEventAttr.TYPE_RAW;

    private final EventParser skylake = Fixtures.parser("skylake");
    private final EventParser zen = Fixtures.parser("zen");

    @Test
    void genericNamesTakeCanonicalNamesAndDefaultLevels() {
        EventSpec cycles = skylake.parse(" cpu-cycles ");
        assertEquals(EventSpec.userOnly("cycles", PerfEventAttr.TYPE_HARDWARE, 0, 0, 0), cycles);
        assertEquals(EventSpec.software("context-switches", 3), skylake.parse("cs"));
        assertEquals(
                EventSpec.userOnly("dTLB-load-misses", PerfEventAttr.TYPE_HW_CACHE, 0x10003, 0, 0),
                skylake.parse("dTLB-load-misses"));
    }

    @Test
    void modifiersCountOnlyTheLevelsNamed() {
        assertLevels(skylake.parse("cycles:k"), true, false, true);
        assertLevels(skylake.parse("cycles:u"), false, true, true);
        assertLevels(skylake.parse("cycles:uk"), false, false, true);
        assertLevels(skylake.parse("cycles:ukh"), false, false, false);
        assertLevels(skylake.parse("cs:u"), false, true, true);
        assertEquals("cycles:k", skylake.parse("cpu-cycles:k").name());
        assertLevels(skylake.parse("r1a2:k"), true, false, true);
    }

    @Test
    void unknownModifierOnAKnownNameNamesTheAllowedOnes() {
        InvalidEventException e = assertThrows(InvalidEventException.class, () -> skylake.parse("cycles:x"));
        assertEquals(
                "unknown modifier 'x' in 'cycles:x': allowed are u (user), k (kernel), h (hypervisor) and their"
                        + " combinations",
                e.getMessage());
    }

    @Test
    void rawHexIsTheRawConfig() {
        assertEquals(EventSpec.userOnly("r1a2", RAW, 0x1a2, 0, 0), skylake.parse("r1a2"));
        assertEquals(0x01c2L, skylake.parse("r01C2").config());
        assertEquals(-1L, skylake.parse("rffffffffffffffff").config());
        assertThrows(UnknownEventException.class, () -> skylake.parse("r1ffffffffffffffff"));
    }

    @Test
    void intelSysfsTermsLandInTheirBits() {
        EventSpec walk = skylake.parse("cpu/event=0x08,umask=0x0e,cmask=1/");
        assertEquals(EventSpec.userOnly("cpu/event=0x08,umask=0x0e,cmask=1/", RAW, 0x1000e08, 0, 0), walk);
        // libpfm4 4.13 with LIBPFM_FORCE_PMU=skl encodes DTLB_LOAD_MISSES.WALK_ACTIVE as type 4 config 0x1001008.
        assertEquals(
                0x1001008L, skylake.parse("cpu/event=0x08,umask=0x10,cmask=1/").config());
        assertEquals(
                0x3_0000_003cL, skylake.parse("cpu/event=0x3c,in_tx,in_tx_cp/").config());
        assertEquals(0x84_00c4L, skylake.parse("cpu/event=0xc4,edge,inv/").config());
        assertEquals(0x20_003cL, skylake.parse("cpu/event=60,any=1/").config());
        EventSpec frontend = skylake.parse("cpu/event=0xc6,umask=0x01,frontend=0x400406/");
        assertEquals(0x1c6L, frontend.config());
        assertEquals(0x400406L, frontend.config1());
    }

    @Test
    void namedSysfsEventsAreTermListsThemselves() {
        assertEquals(0x3cL, skylake.parse("cpu/cpu-cycles/").config());
        assertEquals(0x412eL, skylake.parse("cpu/cache-misses/").config());
        assertEquals(0x300L, skylake.parse("cpu/ref-cycles/").config());
        EventSpec memLoads = skylake.parse("cpu/mem-loads/");
        assertEquals(0x1cdL, memLoads.config());
        assertEquals(3L, memLoads.config1());
        assertEquals(30L, skylake.parse("cpu/mem-loads,ldlat=30/").config1());
        assertEquals(0x3_0000_003cL, skylake.parse("cpu/cycles-ct/").config());
        assertEquals(
                0x120_003cL, skylake.parse("cpu/topdown-total-slots,cmask=1/").config() & 0xffff_ffffL);
    }

    @Test
    void scaleAndUnitFilesAreNotEvents() {
        List<String> names = skylake.knownNames();
        assertTrue(names.contains("cpu/topdown-total-slots/"));
        assertFalse(names.stream().anyMatch(n -> n.contains(".scale")));
        assertThrows(UnknownEventException.class, () -> skylake.parse("cpu/topdown-total-slots.scale/"));
    }

    @Test
    void builtinConfigTermsSetWholeWords() {
        EventSpec spec = skylake.parse("cpu/config=0x1234,config1=5,config2=0x6/");
        assertEquals(0x1234L, spec.config());
        assertEquals(5L, spec.config1());
        assertEquals(6L, spec.config2());
    }

    @Test
    void pmuModifiersFollowTheClosingSlash() {
        assertLevels(skylake.parse("cpu/event=0x3c/k"), true, false, true);
        assertLevels(skylake.parse("cpu/event=0x3c/:uk"), false, false, true);
        assertLevels(skylake.parse("cpu/event=0x3c/"), false, true, true);
        assertThrows(InvalidEventException.class, () -> skylake.parse("cpu/event=0x3c/q"));
    }

    @Test
    void amdEventCodeIsSplitAcrossTheConfig() {
        assertEquals(0x1_0000_00c0L, zen.parse("cpu/event=0x1c0/").config());
        assertEquals(0xf_0000_00ffL, zen.parse("cpu/event=0xfff/").config());
        assertEquals(0x1_0000_0ac0L, zen.parse("cpu/event=0x1c0,umask=0xa/").config());
        assertEquals(0x76L, zen.parse("cpu/cpu-cycles/").config());
        InvalidEventException e = assertThrows(InvalidEventException.class, () -> zen.parse("cpu/event=0x1000/"));
        assertEquals("value 0x1000 of term 'event' in 'cpu/event=0x1000/' does not fit its 12 bits", e.getMessage());
    }

    @Test
    void thisMachinesPmusFromTheirCopiedSysfs() {
        EventParser kvm = Fixtures.parser("kvm-epyc");
        EventSpec tsc = kvm.parse("msr/tsc/");
        assertEquals(9, tsc.type());
        assertEquals(0L, tsc.config());
        assertEquals(
                0x2_0000_0001L, kvm.parse("uprobe/retprobe,ref_ctr_offset=2/").config());
        EventSpec cs = kvm.parse("software/config=3/");
        assertTrue(cs.sameEncoding(EventSpec.software("cs", 3)));
    }

    @Test
    void liveSysfsOfThisMachineParses() throws IOException {
        Path devices = Path.of("/sys/bus/event_source/devices");
        assumeTrue(Files.isDirectory(devices.resolve("software")), "no sysfs PMUs here");
        EventParser live = new EventParser();
        EventSpec cs = live.parse("software/config=3/");
        assertEquals(
                Integer.parseInt(
                        Files.readString(devices.resolve("software/type")).trim()),
                cs.type());
        assertTrue(cs.isSoftware());
        for (String name : live.knownNames()) {
            if (name.indexOf('/') >= 0) {
                String pmu = name.substring(0, name.indexOf('/'));
                assertEquals(
                        Integer.parseInt(
                                Files.readString(devices.resolve(pmu + "/type")).trim()),
                        live.parse(name).type(),
                        name);
            }
        }
    }

    @Test
    void unknownNamesSuggestTheNearest() {
        UnknownEventException e = assertThrows(UnknownEventException.class, () -> skylake.parse("instrucions"));
        assertEquals("instrucions", e.token());
        assertEquals("instructions", e.nearest().get(0));
        assertEquals(
                "unknown event 'instrucions' (libpfm4 lookup not wired); did you mean instructions,"
                        + " cpu/instructions/?",
                e.getMessage());
        assertEquals(
                "L1-dcache-load-misses",
                assertThrows(UnknownEventException.class, () -> skylake.parse("L1-dcache-load-miss:u"))
                        .nearest()
                        .get(0));
        assertEquals(
                "mem-loads",
                assertThrows(UnknownEventException.class, () -> skylake.parse("cpu/mem-load/"))
                        .nearest()
                        .get(0));
        assertEquals(
                "cpu/mem-loads/",
                assertThrows(UnknownEventException.class, () -> skylake.parse("mem-loads"))
                        .nearest()
                        .get(0));
        assertTrue(assertThrows(UnknownEventException.class, () -> skylake.parse("ipcc"))
                .nearest()
                .contains("ipc"));
    }

    /**
     * This project's machines publish no {@code cpu} PMU (kvm-epyc's sysfs has none); with a simulated Skylake the
     * parser sees the simulated core's, whose terms encode as a real Skylake's sysfs has them, type RAW included.
     */
    @Test
    void aSimulatedPmuBringsItsModelsCpuPmu() {
        Path kvm = Fixtures.sysfs("kvm-epyc");
        EventParser simulated = new EventParser(kvm, EventLookup.NOT_WIRED, PmuModel.named("skylake"));
        for (String event : List.of(
                "cpu/event=0x08,umask=0x10,cmask=1/",
                "cpu/event=0xc4,edge,inv/",
                "cpu/event=0x3c,umask=0x00/k",
                "cpu/config=0x1d3/")) {
            assertEquals(skylake.parse(event), simulated.parse(event), event);
        }
        assertEquals(RAW, simulated.parse("cpu/event=0x08,umask=0x10,cmask=1/").type());
        assertEquals(
                0x1001008L,
                simulated.parse("cpu/event=0x08,umask=0x10,cmask=1/").config());
        assertEquals(9, simulated.parse("msr/tsc/").type(), "the machine's other PMUs are still sysfs's");

        UnknownEventException term = assertThrows(UnknownEventException.class, () -> simulated.parse("cpu/any=1/"));
        assertEquals(
                "unknown term 'any' (in 'cpu/any=1/'; cpu takes config, config1, config2, cmask, edge, event, inv,"
                        + " umask); did you mean inv?",
                term.getMessage());
        UnknownEventException pmu = assertThrows(UnknownEventException.class, () -> simulated.parse("cpux/event=1/"));
        assertTrue(
                pmu.getMessage().contains("PMUs here: breakpoint, cpu, msr, software, tracepoint, uprobe"),
                pmu.getMessage());

        UnknownEventException real = assertThrows(
                UnknownEventException.class, () -> Fixtures.parser("kvm-epyc").parse("cpu/event=0x3c/"));
        assertTrue(real.getMessage().startsWith("unknown PMU 'cpu'"), "without the simulation: " + real.getMessage());
    }

    @Test
    void unknownPmuAndTermNameWhatIsThere() {
        UnknownEventException pmu = assertThrows(UnknownEventException.class, () -> skylake.parse("cpux/event=1/"));
        assertEquals(
                "unknown PMU 'cpux' (in 'cpux/event=1/'; PMUs here: breakpoint, cpu, software, tracepoint);"
                        + " did you mean cpu?",
                pmu.getMessage());
        UnknownEventException term = assertThrows(UnknownEventException.class, () -> zen.parse("cpu/umsk=1/"));
        assertEquals(
                "unknown term 'umsk' (in 'cpu/umsk=1/'; cpu takes config, config1, config2, cmask, edge, event,"
                        + " inv, umask or one of its 4 named events); did you mean umask, cmask?",
                term.getMessage());
    }

    @Test
    void malformedPmuSyntaxIsRefused() {
        assertThrows(InvalidEventException.class, () -> skylake.parse("cpu/event=0x3c"));
        assertThrows(InvalidEventException.class, () -> skylake.parse("cpu/event=0xzz/"));
        assertThrows(InvalidEventException.class, () -> skylake.parse("cpu/event=0x3c,,umask=1/"));
        assertThrows(InvalidEventException.class, () -> skylake.parse("cpu/cmask=256/"));
        assertThrows(InvalidEventException.class, () -> skylake.parse(""));
    }

    @Test
    void otherNamesGoToTheLookupWhichKeepsItsReason() {
        EventParser noLibpfm = new EventParser(Fixtures.sysfs("skylake"), name -> {
            throw new UnknownEventException(name, "libpfm4 not installed (apt install libpfm4)");
        });
        UnknownEventException e =
                assertThrows(UnknownEventException.class, () -> noLibpfm.parse("DTLB_LOAD_MISSES.WALK_COMPLETED:u"));
        assertEquals(
                "unknown event 'DTLB_LOAD_MISSES.WALK_COMPLETED:u' (libpfm4 not installed (apt install" + " libpfm4))",
                e.getMessage());

        // The encoding libpfm4 4.13 gives this name with LIBPFM_FORCE_PMU=skl.
        EventParser skl = new EventParser(Fixtures.sysfs("skylake"), name -> {
            if (!name.equals("DTLB_LOAD_MISSES.WALK_COMPLETED")) {
                throw new UnknownEventException(name);
            }
            return EventSpec.userOnly(name, RAW, 0xe08, 0, 0);
        });
        EventSpec walks = skl.parse("DTLB_LOAD_MISSES.WALK_COMPLETED:k");
        assertEquals("DTLB_LOAD_MISSES.WALK_COMPLETED:k", walks.name());
        assertEquals(0xe08L, walks.config());
        assertLevels(walks, true, false, true);
    }

    private static void assertLevels(EventSpec spec, boolean excludeUser, boolean excludeKernel, boolean excludeHv) {
        assertEquals(excludeUser, spec.excludeUser(), spec + " excludeUser");
        assertEquals(excludeKernel, spec.excludeKernel(), spec + " excludeKernel");
        assertEquals(excludeHv, spec.excludeHv(), spec + " excludeHv");
    }
}
