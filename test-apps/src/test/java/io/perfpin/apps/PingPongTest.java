package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PingPongTest {
    @ParameterizedTest(name = "annotated={0}")
    @ValueSource(booleans = {false, true})
    void completesTheRoundTripsWithOrderedPercentiles(boolean annotated) throws InterruptedException {
        PingPong.Result result = PingPong.run(new PingPong.Options(2_000, 100, annotated));
        assertEquals(2_000, result.roundTrips());
        assertTrue(result.medianNanos() <= result.p99Nanos(), result.line());
        assertTrue(result.p99Nanos() <= result.maxNanos(), result.line());
    }

    @Test
    void percentileIsTheNearestRank() {
        long[] oneToHundred = LongStream.rangeClosed(1, 100).toArray();
        assertEquals(50, PingPong.percentile(oneToHundred, 50));
        assertEquals(99, PingPong.percentile(oneToHundred, 99));
        assertEquals(7, PingPong.percentile(new long[] {7}, 99));
    }
}
