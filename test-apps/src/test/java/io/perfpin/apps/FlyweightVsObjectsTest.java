package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FlyweightVsObjectsTest {
    @ParameterizedTest(name = "annotated={0}")
    @ValueSource(booleans = {false, true})
    void bothLayoutsSumToTheClosedForm(boolean annotated) throws InterruptedException {
        FlyweightVsObjects.Result result = FlyweightVsObjects.run(new FlyweightVsObjects.Options(10_001, 3, annotated));
        long expected = FlyweightVsObjects.expectedSum(10_001);
        assertEquals(expected, result.flyweight().buys());
        assertEquals(expected, result.objects().buys());
    }

    @Test
    void closedFormIsTheSumOfTheEvenNumbersBelow() {
        for (int n = 1; n <= 9; n++) {
            long evens = 0;
            for (int i = 0; i < n; i += 2) {
                evens += i;
            }
            assertEquals(evens, FlyweightVsObjects.expectedSum(n), "n=" + n);
        }
    }
}
