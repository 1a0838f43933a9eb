package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.cpu.CpuSet;
import io.perfpin.jvm.ProcText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pool of threads that stay, each counted from its start with the six default events, by perfpin's C library or, for
 * threads a rule pins, by Java: the sampler, which does not tick in this test, is woken by the threads whose
 * descriptors reach a quarter of the process's table, and grows the table ahead of them. It then holds at least three
 * times the descriptors open (four at each look, less what opened while the last growth was under way). The kernel
 * alone grows only a table that is full, to twice its size, which holds at most twice the descriptors open.
 */
class DescriptorTableIT {
    private static final int THREADS = 200;

    /** Each JDK, with threads enrolled by C, then by Java (a pinned thread goes the Java way). */
    static Stream<Arguments> javasAndWays() {
        return AppJvm.javas().flatMap(java -> Stream.of(Arguments.of(java, ""), Arguments.of(java, ";pin=pool-.*@0")));
    }

    @ParameterizedTest
    @MethodSource("javasAndWays")
    void aPoolThatStartsWakesTheSamplerToGrowTheTableAheadOfIt(String java, String pins, @TempDir Path dir)
            throws Exception {
        // the agent's share of the descriptors free at its start, a quarter, must hold the pool's
        assumeTrue(Observed.hardOpenFileLimit() >= 8 * 6 * THREADS, "needs a hard RLIMIT_NOFILE of " + 8 * 6 * THREADS);
        long self = ProcessHandle.current().pid();
        assumeTrue(
                pins.isEmpty()
                        || CpuSet.parseList(Observed.cpusAllowed(self, (int) self))
                                .contains(0),
                "the pinned pool needs CPU 0");
        // no tick in the test's time: only the thread's own wakes can make the sampler look after its start
        try (AppJvm app = AppJvm.start(java, "interval=60m" + pins, dir)) {
            app.await("ready");
            // the sampler's work deferred from its start, a look at the table among it, is done once the stats file is
            Path stats = Observed.statsFile(dir, app.pid());
            long made = System.nanoTime() + 30_000_000_000L;
            while (!Files.exists(stats) && System.nanoTime() < made) {
                Thread.sleep(10);
            }
            assertTrue(Files.exists(stats), "the stats file, made by the sampler's deferred work");
            app.send("park " + THREADS + " pool");
            app.await("parked " + THREADS);
            // each thread opens its counters as it starts, which the app's start() does not wait for
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (open(app.pid()) <= 6 * THREADS && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(
                    open(app.pid()) > 6 * THREADS,
                    "the JVM's descriptors, each thread's six counters among them: " + open(app.pid()));
            // the last growth may still be under way: it waits for an RCU grace period
            while (tableSize(app.pid()) < 3 * open(app.pid()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (!pins.isEmpty()) {
                // pinned, so enrolled by Java: the pin rule matched every thread of the pool
                for (int tid : Observed.tidsNamed(app.pid(), "pool-")) {
                    assertEquals("0", Observed.cpusAllowed(app.pid(), tid), "pool thread " + tid + " pinned");
                }
            }
            long open = open(app.pid());
            long table = tableSize(app.pid());
            assertTrue(table >= 3 * open, "a table of " + table + " entries for " + open + " descriptors open");
            assertEquals(0, app.finish());
        }
    }

    /** The entries of the process's descriptor table, as the kernel says ({@code FDSize}). */
    private static long tableSize(long pid) throws IOException {
        String size = ProcText.word(ProcText.read("/proc/" + pid + "/status"), "\nFDSize:");
        if (size == null) {
            throw new IOException("/proc/" + pid + "/status has no FDSize");
        }
        return Long.parseLong(size);
    }

    private static long open(long pid) throws IOException {
        try (Stream<Path> fds = Files.list(Paths.get("/proc/" + pid + "/fd"))) {
            return fds.count();
        }
    }
}
