package io.perfpin.agent.impl.jfr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** perfpin's event and metric names, as presets, perf, sysfs and libpfm4 spell them, as JFR field names. */
class FieldNamesTest {
    @Test
    void namesBecomeLowerCamelIdentifiers() {
        FieldNames names = new FieldNames();
        assertEquals("taskClock", names.of("task-clock", ""));
        assertEquals("taskClockCoverage", names.of("task-clock", "Coverage"));
        assertEquals("l1DcacheLoadMisses", names.of("L1-dcache-load-misses", ""));
        assertEquals("dtlbLoadMissesWalkActive", names.of("DTLB_LOAD_MISSES.WALK_ACTIVE", ""));
        assertEquals("instRetiredAnyPC1", names.of("INST_RETIRED.ANY_P:c=1", ""));
        assertEquals("cpuEvent0x08Umask0x0e", names.of("cpu/event=0x08,umask=0x0e/", ""));
        assertEquals("e4kAliasPki", names.of("4k-alias-pki", ""));
        assertEquals("dTLBLoadMisses", names.of("dTLB-load-misses", ""));
    }

    @Test
    void eachNameIsTakenOnceAndJfrsOwnFieldsNever() {
        FieldNames names = new FieldNames();
        assertEquals("thread", names.fixed("thread"));
        assertEquals("cycles", names.of("cycles", ""));
        assertEquals("cyclesU", names.of("cycles:u", ""));
        assertEquals("cyclesU_2", names.of("cycles-u", ""), "spelt apart, the same identifier");
        assertEquals("startTime_2", names.of("start-time", ""));
        assertEquals("thread_2", names.of("thread", ""));
        assertTrue(Character.isJavaIdentifierStart(names.of("/", "").charAt(0)));
    }
}
