package io.perfpin.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VerdictTest {

    @Test
    void aFigureOnTheRightSideOfItsTargetMeetsIt() {
        assertTrue(Verdict.atMost(1.10, 1.10, 0, v -> v + "x", "").isMet());
        assertTrue(Verdict.atLeast(0.995, 0.99, 0, v -> v + "x", "").isMet());
    }

    @Test
    void aMissSaysByHowMuchAndWhetherTheSpreadOfTheRunsCoversIt() {
        assertEquals("missed by 50 ms, less than the runs' own spread (80 ms): not told apart from noise here",
                Verdict.atMost(200, 150, 80, v -> (int) v + " ms", "").text());
        assertEquals("missed by 50 ms, more than the runs' own spread (20 ms); it loads more",
                Verdict.atMost(200, 150, 20, v -> (int) v + " ms", "it loads more").text());
    }
}
