package io.perfpin.agent;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static io.perfpin.agent.JavaagentIT.assertWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** 10,000 short-lived counted threads: no descriptor outlives its thread, and no count is lost. */
class ChurnIT {
    private static final int THREADS = 10_000;
    /** Enough pages that the few faults of starting a thread stay within the tolerance. */
    private static final int PAGES = 64;

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void churnedThreadsCloseTheirCountersAndKeepTheirTotals(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("churn.jsonl");
        try (AppJvm app = AppJvm.start(java, "threads=churn-.*;events=page-faults;interval=100ms;out=" + out, dir)) {
            app.await("ready");
            assertEquals(0, Observed.perfEventDescriptors(app.pid()));
            app.send("churn " + THREADS + " " + PAGES);
            app.await("churned " + THREADS);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (Observed.perfEventDescriptors(app.pid()) > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, Observed.perfEventDescriptors(app.pid()), "every ended thread's counters closed");
            assertEquals(0, app.finish());
        }
        List<String> finals = Observed.records(out, "thread", "churn-\\d+");
        assertEquals(THREADS, finals.size(), "a final record per thread");
        long faults = 0;
        for (String record : finals) {
            faults += (long) Observed.number(record, "page-faults");
        }
        assertWithin((long) THREADS * PAGES, faults, 0.03, "page faults of all churned threads");
    }
}
