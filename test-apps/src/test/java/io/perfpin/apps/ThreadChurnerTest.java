package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ThreadChurnerTest {
    @ParameterizedTest(name = "annotated={0}")
    @ValueSource(booleans = {false, true})
    void runsEveryThreadAtMostSomeAtOnceAndLeavesNoneAlive(boolean annotated) throws InterruptedException {
        ThreadChurner.Result result = ThreadChurner.run(new ThreadChurner.Options(300, 3, 2, annotated));
        assertEquals(300, result.ran());
        assertEquals(600, result.pages());
        assertTrue(result.maxAtOnce() >= 1 && result.maxAtOnce() <= 3, result.line());
        assertTrue(
                Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().startsWith("churn-")),
                "a churn thread is still alive");
    }
}
