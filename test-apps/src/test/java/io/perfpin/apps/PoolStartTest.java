package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PoolStartTest {
    @Test
    void timesEveryStartAndLeavesNoThreadAlive() throws InterruptedException {
        PoolStart.Result result = PoolStart.run(new PoolStart.Options(50));

        assertEquals(50, result.threads());
        assertTrue(result.medianNanos() > 0 && result.medianNanos() <= result.slowestNanos(), result.line());
        assertTrue(result.slow() <= 50, result.line());
        assertTrue(
                Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().startsWith("pool-start-")),
                "a pool thread is still alive");
    }
}
