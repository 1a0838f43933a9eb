package io.perfpin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.perfpin.testkit.TestJvm;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A signal's block installed while the JVM already shuts down (a SIGTERM during attach's load) is stopped at once. */
class StopSignalTest {
    @Test
    void aSignalInstalledDuringTheShutdownIsStoppedFromItsStart() throws Exception {
        List<String> said = TestJvm.main(DuringShutdown.class).mergeStderr().run();
        assertEquals(List.of("stopped: true"), said);
    }

    /** Installs a stop signal from a shutdown hook, as a view that begins after the signal came does. */
    public static final class DuringShutdown {
        private DuringShutdown() {}

        public static void main(String[] args) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (StopSignal stop = StopSignal.install()) {
                    System.out.println("stopped: " + stop.await(Duration.ZERO));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
    }
}
