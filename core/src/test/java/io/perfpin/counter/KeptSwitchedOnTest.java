package io.perfpin.counter;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.junit.jupiter.api.Assertions.assertEquals;

class KeptSwitchedOnTest {
    @Test
    void holdsOneDisabledEventPerSoftwareKindAndClosesThemAll() throws IOException {
        Syscalls syscalls = Backends.syscalls();
        long before = perfEventDescriptors();
        EventList events = EventList.parse("ipc,sched", new EventParser());
        try (KeptSwitchedOn held = KeptSwitchedOn.open(syscalls, events.events())) {
            assertEquals(6, held.size(), "the six sched events; cycles and instructions are not software");
            assertEquals(before + 6, perfEventDescriptors());
        }
        assertEquals(before, perfEventDescriptors());
    }

    private static long perfEventDescriptors() throws IOException {
        long count = 0;
        try (var fds = Files.list(Paths.get("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    count += Files.readSymbolicLink(fd).toString().equals("anon_inode:[perf_event]") ? 1 : 0;
                } catch (IOException e) {
                    // the directory stream's own descriptor, closed by now
                }
            }
        }
        return count;
    }
}
