package io.perfpin.stats;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatsStringsTest {
    private static final int SIZE = StatsLayout.NAME_SIZE;

    @Test
    void aLongNameKeepsItsStartAndItsEnd() {
        String worker = "org.openjdk.jmh.samples.JMHSample_22_FalseSharing.baseline-jmh-worker-1";
        String kept = new String(StatsStrings.shortenedName(worker, SIZE), StandardCharsets.UTF_8);
        assertEquals("org.openjdk.jmh\u2026HSample_22_FalseSharing.baseline-jmh-worker-1", kept);
        assertEquals(SIZE - 1, kept.getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void aNameThatFitsIsKeptWhole() {
        String name = "x".repeat(SIZE - 1);
        assertEquals(name, new String(StatsStrings.shortenedName(name, SIZE), StandardCharsets.UTF_8));
    }

    @Test
    void noCharacterIsCutInHalfAtEitherEnd() {
        for (int shift = 0; shift < 4; shift++) {
            String name = "a".repeat(shift) + "\u00e9\u20ac\ud83d\ude00".repeat(20);
            byte[] kept = StatsStrings.shortenedName(name, SIZE);
            String text = new String(kept, StandardCharsets.UTF_8);
            assertTrue(kept.length <= SIZE - 1, text);
            assertEquals(kept.length, text.getBytes(StandardCharsets.UTF_8).length, "valid UTF-8: " + text);
            assertTrue(text.contains("\u2026") && !text.contains("\ufffd"), text);
        }
    }
}
