package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class NearestNamesTest {
    @Test
    void distanceCountsInsertDeleteSubstituteAndAdjacentSwap() {
        assertEquals(0, NearestNames.distance("LLC-loads", "llc-loads"));
        assertEquals(1, NearestNames.distance("cyles", "cycles"));
        assertEquals(1, NearestNames.distance("cylces", "cycles"));
        assertEquals(1, NearestNames.distance("task_clock", "task-clock"));
        assertEquals(3, NearestNames.distance("", "abc"));
        assertEquals(1, NearestNames.distance("ab", "ba"));
    }

    @Test
    void nearestAreBestFirstAtMostThreeAndCloseEnough() {
        List<String> names = GenericEvents.spellings();
        assertEquals("cycles", NearestNames.nearest("cyclse", names).get(0));
        assertEquals(
                "L1-dcache-load-misses",
                NearestNames.nearest("L1-dcache-load-miss", names).get(0));
        assertEquals(List.of("ab", "aa", "ac"), NearestNames.nearest("ab", List.of("aa", "ab", "ac", "ad", "zzz")));
        assertEquals(List.of("cpu/mem-loads/"), NearestNames.nearest("mem-load", List.of("cpu/mem-loads/", "cpu/")));
        assertEquals(List.of(), NearestNames.nearest("DTLB_LOAD_MISSES.WALK_COMPLETED", names));
    }
}
