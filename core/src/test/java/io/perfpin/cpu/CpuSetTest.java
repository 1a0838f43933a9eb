package io.perfpin.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CpuSetTest {
    @Test
    void parsesAndPrintsListSyntax() {
        CpuSet set = CpuSet.parseList("0-3,8,10-11\n");
        assertArrayEquals(new int[] {0, 1, 2, 3, 8, 10, 11}, set.toArray());
        assertEquals("0-3,8,10-11", set.toString());
        assertEquals(7, set.size());
        assertEquals(0, set.first());
        assertEquals(11, set.last());
        assertEquals(set, CpuSet.parseList(" 0-3 , 8,10 - 11 "));
    }

    /** One CPU reads as one, never "CPUs 0"; several as a list; none as none. */
    @Test
    void inWordsSaysCpuForOneAndCpusForSeveral() {
        assertEquals("CPU 3", CpuSet.of(3).inWords());
        assertEquals("CPUs 0-3,8", CpuSet.parseList("0-3,8").inWords());
        assertEquals("CPUs 0,2", CpuSet.of(0, 2).inWords());
        assertEquals("no CPU", CpuSet.EMPTY.inWords());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\n", "  \n"})
    void blankIsEmpty(String text) {
        CpuSet set = CpuSet.parseList(text);
        assertTrue(set.isEmpty());
        assertEquals(-1, set.first());
        assertEquals(-1, set.last());
        assertEquals("", set.toString());
        assertEquals(CpuSet.EMPTY, set);
    }

    @Test
    void badListTokenNamesTokenAndSyntax() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parseList("0-3,x,5"));
        assertEquals(
                "bad CPU list token 'x' in \"0-3,x,5\": expected CPU numbers and ranges separated by commas,"
                        + " like 0-3,8,10-11",
                e.getMessage());
        for (String bad : new String[] {"1,,2", "-1", "3-1", "1-2-3", "0x3", "1,", "99999999999"}) {
            assertThrows(IllegalArgumentException.class, () -> CpuSet.parseList(bad), bad);
        }
        assertTrue(
                assertThrows(IllegalArgumentException.class, () -> CpuSet.parseList("0-99999999999999999999"))
                        .getMessage()
                        .endsWith("expected CPUs up to " + CpuSet.MAX_CPU),
                "no overflow: the number is too large");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuSet.parseList("0-2000000"))
                .getMessage()
                .contains("CPUs up to " + CpuSet.MAX_CPU));
    }

    @Test
    void parsesSysfsHexMasks() {
        assertEquals(CpuSet.range(0, 15), CpuSet.parseMask("00000000,0000ffff\n"));
        assertEquals(CpuSet.of(0, 1), CpuSet.parseMask("3"), "Cpus_allowed of a 2-CPU machine");
        assertEquals(CpuSet.range(32, 63), CpuSet.parseMask("ffffffff,00000000"));
        assertEquals(
                CpuSet.parseList("5,7,9,11,13,15,17,19"),
                CpuSet.parseMask("00000000,00000000,00000000,00000000,00000000,000aaaa0"));
        assertEquals(CpuSet.of(95), CpuSet.parseMask("80000000,00000000,00000000"));
        assertTrue(CpuSet.parseMask("00000000,00000000").isEmpty());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parseMask("ff,1g"));
        assertEquals(
                "bad CPU mask token '1g' in \"ff,1g\": expected hex groups of up to 8 digits separated by"
                        + " commas, like ffffffff,0000000f",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuSet.parseMask("123456789"));
    }

    @Test
    void setAlgebraAcrossWords() {
        CpuSet low = CpuSet.range(0, 70);
        CpuSet high = CpuSet.range(64, 200);
        assertEquals(CpuSet.range(0, 200), low.union(high));
        assertEquals(CpuSet.range(64, 70), low.intersect(high));
        assertEquals(CpuSet.range(0, 63), low.minus(high));
        assertEquals(CpuSet.range(71, 200), high.minus(low));
        assertTrue(low.intersects(high));
        assertFalse(CpuSet.of(1).intersects(CpuSet.of(200)));
        assertTrue(low.union(high).containsAll(high));
        assertFalse(low.containsAll(high));
        assertEquals(1, low.minus(CpuSet.range(1, 70)).size());
        assertEquals(CpuSet.EMPTY, CpuSet.of(130).minus(CpuSet.of(130)), "trailing zero words do not count");
        assertEquals(
                CpuSet.EMPTY.hashCode(), CpuSet.of(130).minus(CpuSet.of(130)).hashCode());
        assertNotEquals(CpuSet.of(1), CpuSet.of(2));
    }

    @Test
    void iteratesInOrder() {
        CpuSet set = CpuSet.of(255, 3, 64, 63);
        StringBuilder seen = new StringBuilder();
        set.forEach(cpu -> seen.append(cpu).append(' '));
        assertEquals("3 63 64 255 ", seen.toString());
        assertEquals(64, set.next(64));
        assertEquals(255, set.next(65));
        assertEquals(-1, set.next(256));
        assertTrue(set.contains(255));
        assertFalse(set.contains(254));
        assertFalse(set.contains(-1));
        assertFalse(set.contains(100_000));
    }

    @Test
    void kernelMaskRoundTrip() {
        CpuSet set = CpuSet.of(0, 63, 64, 129);
        long[] mask = set.toMask(4);
        assertArrayEquals(new long[] {1L | 1L << 63, 1L, 2L, 0L}, mask);
        assertEquals(3, set.maskWords());
        assertEquals(set, CpuSet.fromMask(mask));
        assertThrows(IllegalArgumentException.class, () -> set.toMask(2));
        mask[0] = 0;
        assertTrue(set.contains(0), "the set does not share the mask");
    }
}
