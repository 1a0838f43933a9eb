package io.perfpin.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VerdictTest {

    @Test
    void aMedianOnTheRightSideOfItsTargetMeetsIt() {
        assertTrue(Verdict.atMost(Summary.of(1.0, 1.10, 1.5), 1.10, v -> v + "x", "")
                .isMet());
        assertTrue(Verdict.atLeast(Summary.of(0.5, 0.995, 1.0), 0.99, v -> v + "x", "")
                .isMet());
    }

    @Test
    void aMissWhoseSpreadStillReachesTheTargetCannotBeToldFromNoise() {
        assertEquals(
                "missed by 50 ms, but the spread reaches the target (at best 120 ms): not told apart from noise"
                        + " here",
                Verdict.atMost(Summary.of(120, 200, 260), 150, v -> (int) v + " ms", "")
                        .text());
        assertEquals(
                "missed by 0.02x, but the spread reaches the target (at best 1.00x): not told apart from noise"
                        + " here",
                Verdict.atLeast(Summary.of(0.9, 0.97, 1.0), 0.99, v -> Summary.number(v, 2) + "x", "")
                        .text());
    }

    @Test
    void aMissWhoseWholeSpreadMissesSaysSoAndWhy() {
        assertEquals(
                "missed by 50 ms; even the most favourable end of the spread (180 ms) misses it; it loads more",
                Verdict.atMost(Summary.of(180, 200, 260), 150, v -> (int) v + " ms", "it loads more")
                        .text());
    }

    @Test
    void aRatioOfAdditionsWhoseSpreadIsUnboundedCannotBeToldFromNoise() {
        Summary ratio = Summary.additionRatio(Summary.of(10, 20, 30), Summary.of(-1, 5, 6));
        String unbounded = "(at best −∞x)";
        String expected =
                "missed by 3.00x, but the spread reaches the target " + unbounded + ": not told apart from noise here";
        assertEquals(
                expected,
                Verdict.atMost(ratio, 1.0, v -> Summary.number(v, 2) + "x", "").text());
    }

    @Test
    void aShareOfThroughputLostIsJudgedAsACostAtMostItsTarget() {
        Summary lost = Summary.of(0.985, 0.992, 0.995).below(1).scaled(100);
        assertTrue(Verdict.atMost(lost, 1, v -> Summary.number(v, 1) + "%", "").isMet());
        assertEquals(
                "missed by 1.0%; even the most favourable end of the spread (1.5%) misses it",
                Verdict.atMost(
                                Summary.of(0.97, 0.98, 0.985).below(1).scaled(100),
                                1,
                                v -> Summary.number(v, 1) + "%",
                                "")
                        .text());
    }
}
