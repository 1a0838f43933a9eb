package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AgentStateTest {
    /**
     * An agent makes its stats file a moment after it starts, so a look that needs what the file says (attach, for
     * the options the agent runs with) waits for it while it is not there, and gives up at the grace's end.
     */
    @Test
    void aLookAtAnAgentJustStartedWaitsForItsStatsFile() throws Exception {
        try (ChildJvm counted = ChildJvm.start(RegistryChild.class.getName(), "later", "-", "1")) {
            try {
                counted.await(ReportCommandTest.TOUCHED);
                long pid = counted.pid();
                // what a JVM of the same pid may have left there: this one makes its file only when told
                Files.deleteIfExists(PerfpinDirectory.statsFile(pid));
                assertFalse(AgentState.of(pid).active(), "no stats file yet");
                assertFalse(
                        AgentState.ofRunning(pid, Duration.ofMillis(200)).active(), "none within the grace: given up");

                CountDownLatch looking = new CountDownLatch(1);
                CompletableFuture<AgentState> look = CompletableFuture.supplyAsync(() -> {
                    looking.countDown();
                    try {
                        return AgentState.ofRunning(pid, Duration.ofMinutes(1));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertTrue(looking.await(1, TimeUnit.MINUTES), "the look began");
                assertFalse(look.isDone(), "no file, no answer");
                counted.send("publish");
                AgentState state = look.get(1, TimeUnit.MINUTES);
                assertTrue(state.active(), state.toString());
                assertEquals("every 50 ms", state.detail());
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(counted.pid()));
            }
        }
    }
}
