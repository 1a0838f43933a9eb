package io.perfpin.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ValueHistogramTest {
    @Test
    void smallValuesAreExactAndLargeOnesWithinOneThirtySecond() {
        for (long v = 0; v < 64; v++) {
            assertEquals(v, ValueHistogram.lowerBound(ValueHistogram.bucket(v)));
        }
        for (long v = 64; v > 0 && v < Long.MAX_VALUE / 3; v = v * 3 + 7) {
            long low = ValueHistogram.lowerBound(ValueHistogram.bucket(v));
            assertTrue(low <= v && v - low <= v / 32, v + " fell in a bucket starting at " + low);
            assertTrue(ValueHistogram.bucket(low) == ValueHistogram.bucket(v));
        }
        assertTrue(ValueHistogram.bucket(Long.MAX_VALUE) > ValueHistogram.bucket(Long.MAX_VALUE / 2));
    }

    @Test
    void percentilesOfAKnownDistribution() {
        ValueHistogram h = new ValueHistogram();
        for (int v = 1; v <= 100; v++) {
            h.record(v);
        }
        h.record(-5); // a delta can never be negative; it counts as 0
        assertEquals(101, h.total());
        assertEquals(50, h.valueAt(0.5), 1);
        long p99 = h.valueAt(0.99);
        assertTrue(p99 >= 96 && p99 <= 99, "p99 " + p99);
        assertEquals(0, new ValueHistogram().valueAt(0.5));
    }

    @Test
    void mergingAddsCounts() {
        ValueHistogram a = new ValueHistogram();
        ValueHistogram b = new ValueHistogram();
        a.record(10);
        b.record(1000);
        b.record(1000);
        ValueHistogram sum = new ValueHistogram();
        a.addTo(sum);
        b.addTo(sum);
        assertEquals(3, sum.total());
        assertEquals(992, sum.valueAt(0.99)); // 1000's bucket starts at 992
        assertEquals(10, sum.valueAt(0.3));
    }

    @Test
    void aReaderRacingTheRecorderOnlyEverSeesRecordedValues() throws InterruptedException {
        ValueHistogram h = new ValueHistogram();
        int values = 2_000_000;
        Thread recorder = new Thread(() -> {
            for (int i = 0; i < values; i++) {
                h.record(10 + (i % 1000));
            }
        });
        recorder.start();
        try {
            while (recorder.isAlive()) {
                ValueHistogram merged = new ValueHistogram();
                h.addTo(merged);
                for (double q : new double[] {0.5, 0.99, 1.0}) {
                    long v = merged.valueAt(q);
                    assertTrue(v == 0 || (v >= 10 && v <= 1009), q + " read " + v);
                    long direct = h.valueAt(q);
                    assertTrue(direct == 0 || (direct >= 10 && direct <= 1009), q + " read " + direct);
                }
            }
        } finally {
            recorder.join(60_000);
        }
        assertEquals(values, h.total());
    }
}
