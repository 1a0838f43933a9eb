package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.testkit.PerfEventDescriptors;
import io.perfpin.testkit.TestJvm;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An application whose heap is full for a while: the agent's allocations fail with it, and it goes on counting once
 * the heap has room again, its sampler alive, every ended thread's descriptors and pin given back.
 */
class FullHeapIT {
    private static final int THREADS = 300;

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    /**
     * Once, with the heap full, the sampler's handler made the text of what failed, which failed again, and the
     * sampler ended: the threads that ended after kept their six descriptors each, and the JVM handed perfpin's
     * error to the application's handler of uncaught exceptions.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void afterTheHeapWasFullEveryEndedThreadGivesItsDescriptorsBack(String java, @TempDir Path dir) throws Exception {
        try (AppJvm app = AppJvm.start(java, "pin=churn-.*@any;interval=100ms", dir, "-Xmx32m")) {
            app.await("ready");
            long before = PerfEventDescriptors.settled(app.pid());
            app.send("fullheap 2000"); // some 20 ticks of the sampler's, each with the heap full
            app.await("heap let go");
            app.send("churn " + THREADS + " 1 churn");
            app.await("churned " + THREADS);
            // given back on the sampler's ticks after each thread's end: waited for, where a sampler that ended never
            // gives them back
            long deadline = System.nanoTime() + TestJvm.DEADLINE.toNanos();
            while (PerfEventDescriptors.of(app.pid()) != before && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(before, PerfEventDescriptors.of(app.pid()), "the churned threads' descriptors");
            assertTrue(Observed.threadNames(app.pid()).contains("perfpin-sampler"), "the sampler runs on");
            app.send("finish");
            app.await("done");
            assertEquals(0, app.exitWithin(TestJvm.DEADLINE));
            List<String> uncaught = app.stderr().stream()
                    .filter(line -> line.contains("UncaughtExceptionHandler") || line.contains("Exception in thread"))
                    .collect(Collectors.toList());
            assertEquals(List.of(), uncaught, "nothing of perfpin's reaches the application's handler");
        }
    }
}
