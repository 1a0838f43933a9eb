package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FourKAliasingTest {
    @ParameterizedTest(name = "annotated={0}")
    @ValueSource(booleans = {false, true})
    void coversTheRequestedOffsets(boolean annotated) throws InterruptedException {
        FourKAliasing.Result result = FourKAliasing.run(new FourKAliasing.Options(64, 4096, 1024, 10, annotated));
        assertEquals(
                List.of(0, 1024, 2048, 3072, 4096),
                List.copyOf(result.nanosPerElement().keySet()));
    }

    @Test
    void addsTheSourceIntoTheTargetOncePerPass() {
        long[] memory = {1, 2, 3, 0, 0, 0};
        FourKAliasing.add(memory, 3, 3, 4);
        assertEquals(
                List.of(1L, 2L, 3L, 4L, 8L, 12L),
                List.of(memory[0], memory[1], memory[2], memory[3], memory[4], memory[5]));
    }
}
