package io.perfpin.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.event.EventSpec;
import io.perfpin.event.GenericEvents;
import io.perfpin.nativeio.PerfEventAttr;
import org.junit.jupiter.api.Test;

class ExportedEventTest {
    @Test
    void namesAreLowerCaseWordsJoinedByUnderscores() {
        assertEquals("task_clock", ExportedEvent.of("task-clock", false).baseName());
        assertEquals(
                "context_switches", ExportedEvent.of("context-switches", false).baseName());
        assertEquals(
                "dtlb_load_misses_walk_completed",
                ExportedEvent.of("DTLB_LOAD_MISSES.WALK_COMPLETED", false).baseName());
        assertEquals(
                "cpu_event_0x08_umask_0x0e",
                ExportedEvent.of("cpu/event=0x08,umask=0x0e/", false).baseName());
        assertEquals(
                "l1_dcache_load_misses",
                ExportedEvent.of("L1-dcache-load-misses", false).baseName());
        assertEquals("cycles_u", ExportedEvent.of("cycles:u", false).baseName());
        assertEquals("event", ExportedEvent.of("//", false).baseName());
    }

    @Test
    void theClocksAreExportedInSecondsAndCountsAsCounted() {
        assertTrue(ExportedEvent.of("task-clock", false).seconds());
        assertTrue(ExportedEvent.of("cpu-clock:u", false).seconds());
        assertFalse(ExportedEvent.of("cycles", false).seconds());
        assertFalse(ExportedEvent.of("task-clock-like", false).seconds());
        assertEquals(1.5, ExportedEvent.of("task-clock", false).exported(1_500_000_000L));
        assertEquals(42.0, ExportedEvent.of("page-faults", false).exported(42));
    }

    @Test
    void onlyEventsThatTakeAPmuCounterCanBeMultiplexed() {
        for (String hardware : new String[] {"cycles", "instructions", "LLC-load-misses"}) {
            assertTrue(
                    ExportedEvent.of(GenericEvents.lookup(hardware).orElseThrow())
                            .multiplexed(),
                    hardware);
        }
        assertTrue(
                ExportedEvent.of(new EventSpec("r01c2", PerfEventAttr.TYPE_RAW, 0x1c2, 0, 0, false, true, true))
                        .multiplexed(),
                "a raw event");
        // a sysfs PMU's type is the number it was given at boot, past the fixed PERF_TYPE_*
        assertTrue(
                ExportedEvent.of(new EventSpec("uncore_imc/cas_count_read/", 17, 0x304, 0, 0, false, false, false))
                        .multiplexed(),
                "a sysfs PMU's event");
        for (String software : new String[] {"task-clock", "page-faults", "context-switches", "cpu-migrations"}) {
            assertFalse(
                    ExportedEvent.of(GenericEvents.lookup(software).orElseThrow())
                            .multiplexed(),
                    software);
        }
        assertFalse(
                ExportedEvent.of(new EventSpec(
                                "sched:sched_switch", PerfEventAttr.TYPE_TRACEPOINT, 316, 0, 0, false, false, false))
                        .multiplexed(),
                "a tracepoint");
        assertFalse(
                ExportedEvent.of(new EventSpec(
                                "mem:0x1000", PerfEventAttr.TYPE_BREAKPOINT, 0, 0, 0, false, false, false))
                        .multiplexed(),
                "a breakpoint");
    }
}
