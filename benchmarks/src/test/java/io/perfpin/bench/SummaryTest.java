package io.perfpin.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
