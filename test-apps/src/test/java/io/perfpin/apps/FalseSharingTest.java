package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FalseSharingTest {
    @ParameterizedTest(name = "annotated={0}")
    @ValueSource(booleans = {false, true})
    void bothLayoutsCountEveryIncrement(boolean annotated) throws InterruptedException {
        FalseSharing.Result result = FalseSharing.run(new FalseSharing.Options(100_000, annotated));
        for (FalseSharing.LayoutRun layout : new FalseSharing.LayoutRun[] {result.adjacent(), result.padded()}) {
            assertEquals(100_000, layout.first());
            assertEquals(100_000, layout.second());
        }
    }
}
