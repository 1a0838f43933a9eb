package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** The parser as users get it: perf's names, this machine's sysfs, then libpfm4 for this machine's CPU. */
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

    @Test
    void withoutLibpfm4TheReasonSaysHowToInstallIt() {
        assumeTrue(!LibpfmEncoder.available(), "libpfm4 is installed here");
        UnknownEventException e =
                assertThrows(UnknownEventException.class, () -> parser.parse("DTLB_LOAD_MISSES.WALK_COMPLETED"));
        assertTrue(e.getMessage().contains("apt-get install libpfm4"), e.getMessage());
    }
}
