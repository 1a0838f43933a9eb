package io.perfpin.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.testkit.PerfEventDescriptors;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class KeptSwitchedOnTest {
    @Test
    void holdsOneDisabledEventPerSoftwareKindAndClosesThemAll() throws IOException {
        Syscalls syscalls = Backends.syscalls();
        long before = PerfEventDescriptors.ofThisProcess();
        EventList events = EventList.parse("ipc,sched", new EventParser());
        try (KeptSwitchedOn held = KeptSwitchedOn.open(syscalls, events.events(), DescriptorBudget.unbounded())) {
            assertEquals(6, held.size(), "the six sched events; cycles and instructions are not software");
            assertEquals(before + 6, PerfEventDescriptors.ofThisProcess());
        }
        assertEquals(before, PerfEventDescriptors.ofThisProcess());
    }
}
