package io.perfpin.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SummaryTest {

    @Test
    void medianOfAnOddCountIsTheMiddleRunAndOfAnEvenCountTheMeanOfTheTwoMiddleOnes() {
        assertEquals(new Summary(3, 1, 9, 3), Summary.of(9, 1, 3));
        assertEquals(new Summary(2.5, 1, 9, 4), Summary.of(9, 1, 3, 2));
    }

    @Test
    void ratioAndDifferenceSpanWhatAnyTwoRunsCouldGive() {
        Summary a = Summary.of(10, 12, 14);
        Summary b = Summary.of(4, 5, 6);
        assertEquals(new Summary(12.0 / 5, 10.0 / 6, 14.0 / 4, 3), Summary.ratio(a, b));
        assertEquals(new Summary(7, 4, 10, 3), Summary.difference(a, b));
    }

    @Test
    void aToolsCostIsWhatItAddsOverNoToolAndItsRatioThatOfTheAdditions() {
        Summary none = Summary.of(30, 32, 34);
        Cost cost = Cost.measured(none, Summary.of(90, 92, 100), Summary.of(50, 52, 54));
        assertEquals(new Summary(60, 56, 70, 3), cost.perfpinAdds());
        assertEquals(new Summary(20, 16, 24, 3), cost.peerAdds());
        // 60/20, not the 92/52 of the totals that hides what both runs share
        assertEquals(new Summary(3, 56.0 / 24, 70.0 / 16, 3), cost.ratio());
    }

    @Test
    void aRatioOfAdditionsIsUnboundedWhereThePeersAdditionMayBeNothingAndUndefinedWhereItsMedianIs() {
        Summary perfpin = Summary.of(10, 20, 30);
        assertEquals(
                new Summary(4, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, 3),
                Summary.additionRatio(perfpin, Summary.of(-1, 5, 6)));
        assertNull(Summary.additionRatio(perfpin, Summary.of(-1, 0, 6)));
        assertNull(new Cost(null, perfpin, null).ratio());
        assertEquals(
                "4.000 (−∞–∞)",
                Summary.additionRatio(perfpin, Summary.of(-1, 5, 6)).format());
    }

    @Test
    void aNegativeAdditionIsLeastOverTheSmallestPeer() {
        assertEquals(
                new Summary(1, -2.0 / 1, 4.0 / 1, 3), Summary.additionRatio(Summary.of(-2, 2, 4), Summary.of(1, 2, 4)));
    }

    @Test
    void whatAFractionLeavesOfAWholeTurnsTheSpreadRound() {
        // throughput kept 0.95 to 1.01 of no tool's: lost 5% at worst, 1% gained at best
        assertEquals(
                "3.0 (-1.0–5.0)",
                Summary.of(0.95, 0.97, 1.01).below(1).scaled(100).format(1));
    }

    @Test
    void formatsTheMedianThenTheSpread() {
        assertEquals("1,234.5 (1,000.0–2,000.0)", Summary.of(1000, 1234.5, 2000).format(1));
        assertEquals("1,235 (1,000–2,000)", Summary.of(1000, 1234.5, 2000).format());
        assertEquals("0.500 (0.250–0.750)", Summary.of(0.25, 0.5, 0.75).format());
    }

    @Test
    void refusesNothing() {
        assertThrows(IllegalArgumentException.class, Summary::of);
    }
}
