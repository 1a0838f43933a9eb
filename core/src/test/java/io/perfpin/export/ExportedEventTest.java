package io.perfpin.export;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExportedEventTest {
    @Test
    void namesAreLowerCaseWordsJoinedByUnderscores() {
        assertEquals("task_clock", ExportedEvent.of("task-clock").baseName());
        assertEquals("context_switches", ExportedEvent.of("context-switches").baseName());
        assertEquals("dtlb_load_misses_walk_completed",
                ExportedEvent.of("DTLB_LOAD_MISSES.WALK_COMPLETED").baseName());
        assertEquals("cpu_event_0x08_umask_0x0e", ExportedEvent.of("cpu/event=0x08,umask=0x0e/").baseName());
        assertEquals("l1_dcache_load_misses", ExportedEvent.of("L1-dcache-load-misses").baseName());
        assertEquals("cycles_u", ExportedEvent.of("cycles:u").baseName());
        assertEquals("event", ExportedEvent.of("//").baseName());
    }

    @Test
    void theClocksAreExportedInSecondsAndCountsAsCounted() {
        assertTrue(ExportedEvent.of("task-clock").seconds());
        assertTrue(ExportedEvent.of("cpu-clock:u").seconds());
        assertFalse(ExportedEvent.of("cycles").seconds());
        assertFalse(ExportedEvent.of("task-clock-like").seconds());
        assertEquals(1.5, ExportedEvent.of("task-clock").exported(1_500_000_000L));
        assertEquals(42.0, ExportedEvent.of("page-faults").exported(42));
    }
}
