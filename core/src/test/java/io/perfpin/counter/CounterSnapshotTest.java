package io.perfpin.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CounterSnapshotTest {

    @Test
    void aFullyCountedEventIsItsRawCountExactly() {
        CounterSnapshot s = new CounterSnapshot(1);
        s.set(0, 9_007_199_254_740_993L, 1_000, 1_000); // beyond a double's exact integers
        assertEquals(9_007_199_254_740_993L, s.value(0));
        assertEquals(1.0, s.coverage(0));
    }

    @Test
    void aMultiplexedEventIsExtrapolatedAndSaysByHowMuch() {
        CounterSnapshot s = new CounterSnapshot(1);
        s.set(0, 1_000, 400, 100);
        assertEquals(4_000, s.value(0));
        assertEquals(0.25, s.coverage(0));
        assertTrue(s.isCounted(0));
    }

    @Test
    void anEventNeverScheduledIsNotCountedRatherThanZero() {
        CounterSnapshot s = new CounterSnapshot(1);
        s.set(0, 0, 5_000, 0);
        assertFalse(s.isCounted(0));
        assertEquals(0.0, s.coverage(0));
    }

    @Test
    void aThreadThatNeverRanHasExactlyZeroCountsNotMissingOnes() {
        CounterSnapshot s = new CounterSnapshot(2);
        s.notOpened(1);
        assertTrue(s.isCounted(0));
        assertEquals(0, s.value(0));
        assertEquals(1.0, s.coverage(0));
        assertFalse(s.isCounted(1), "a refused event has no counts at all");
    }

    @Test
    void aDeltaScalesByTheIntervalsOwnTimes() {
        CounterSnapshot earlier = new CounterSnapshot(2);
        CounterSnapshot later = new CounterSnapshot(2);
        CounterSnapshot delta = new CounterSnapshot(2);
        earlier.set(0, 100, 1_000, 1_000);
        later.set(0, 300, 2_000, 1_500); // this interval: 200 counted in 500 of 1000 ns
        earlier.set(1, 7, 10, 10);
        later.set(1, 9, 20, 20);
        CounterSnapshot.delta(later, earlier, delta);
        assertEquals(200, delta.raw(0));
        assertEquals(0.5, delta.coverage(0));
        assertEquals(400, delta.value(0));
        assertEquals(2, delta.value(1));
    }
}
