package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class PmuFormatTest {
    @Test
    void everyFixtureFormatParses() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(Fixtures.sysfs(""))) {
            files = walk.filter(p -> p.getParent().getFileName().toString().equals("format"))
                    .collect(Collectors.toList());
        }
        assertFalse(files.isEmpty());
        for (Path file : files) {
            PmuFormat format =
                    PmuFormat.parse(file.toString(), file.getFileName().toString(), Files.readString(file));
            assertTrue(format.bits() >= 1 && format.bits() <= 64, file.toString());
        }
    }

    @Test
    void singleBitRangeAndWord() {
        PmuFormat edge = PmuFormat.parse("cpu", "edge", "config:18\n");
        assertEquals(0, edge.word());
        assertEquals(1, edge.bits());
        PmuFormat ldlat = PmuFormat.parse("cpu", "ldlat", "config1:0-15");
        assertEquals(1, ldlat.word());
        assertEquals(16, ldlat.bits());
    }

    @Test
    void splitFieldTakesLowBitsFirst() {
        PmuFormat event = PmuFormat.parse("cpu", "event", "config:0-7,32-35");
        assertEquals(12, event.bits());
        long[] words = new long[3];
        event.write(0xabc, words, "t");
        assertEquals(0xa_0000_00bcL, words[0]);
    }

    @Test
    void writeReplacesEarlierBitsOnly() {
        PmuFormat umask = PmuFormat.parse("cpu", "umask", "config:8-15");
        long[] words = {0xffff_ffffL, 0, 0};
        umask.write(0x01, words, "t");
        assertEquals(0xffff_01ffL, words[0]);
    }

    @Test
    void fullWidthFieldTakesAnyValue() {
        long[] words = new long[3];
        PmuFormat.parse("msr", "event", "config:0-63").write(-1L, words, "t");
        assertEquals(-1L, words[0]);
    }

    @Test
    void valueWiderThanTheFieldIsRefused() {
        PmuFormat cmask = PmuFormat.parse("cpu", "cmask", "config:24-31");
        InvalidEventException e =
                assertThrows(InvalidEventException.class, () -> cmask.write(0x100, new long[3], "cpu/cmask=0x100/"));
        assertEquals("value 0x100 of term 'cmask' in 'cpu/cmask=0x100/' does not fit its 8 bits", e.getMessage());
    }

    @Test
    void unusableFormatsSayWhy() {
        assertThrows(InvalidEventException.class, () -> PmuFormat.parse("x", "a", "config3:0-7"));
        assertThrows(InvalidEventException.class, () -> PmuFormat.parse("x", "a", "config:7-0"));
        assertThrows(InvalidEventException.class, () -> PmuFormat.parse("x", "a", "config:0-64"));
        assertThrows(InvalidEventException.class, () -> PmuFormat.parse("x", "a", "config"));
    }
}
