package io.perfpin.agent;

import static io.perfpin.agent.JavaagentIT.assertWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.perfpin.testkit.PerfEventDescriptors;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * 10,000 short-lived counted threads: no descriptor outlives its thread, and no count is lost; and among threads
 * that rules select and threads they do not, only the selected ones are counted, each to its final record.
 */
class ChurnIT {
    private static final int THREADS = 10_000;
    /**
     * Enough that the faults a thread takes of its own as it starts and ends (three or four: its first stack and
     * heap pages, counted from its first instruction) stay well inside 3%.
     */
    private static final int PAGES = 192;
    /** Threads that live through the churn, as many selected as not. */
    private static final int PARKED = 20;

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void churnedThreadsCloseTheirCountersAndKeepTheirTotals(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("churn.jsonl");
        try (AppJvm app = AppJvm.start(java, "threads=churn-.*;events=page-faults;interval=100ms;out=" + out, dir)) {
            app.await("ready");
            // The agent's own: one disabled event per software kind it counts, which keeps the kernel's code on.
            long agentsOwn = PerfEventDescriptors.settled(app.pid());
            app.send("churn " + THREADS + " " + PAGES + " churn");
            app.await("churned " + THREADS);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (PerfEventDescriptors.of(app.pid()) > agentsOwn && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(agentsOwn, PerfEventDescriptors.of(app.pid()), "every ended thread's counters closed");
            assertEquals(0, app.finish());
        }
        List<String> churned = Observed.records(out, "thread", "churn-\\d+");
        assertEquals(THREADS, churned.size(), "a final record per thread");
        long touched = (long) THREADS * PAGES;
        System.out.println("churn: " + faults(churned) + " faults for " + touched + " pages touched");
        assertWithin(touched, faults(churned), 0.03, "page faults of all churned threads");
    }

    /**
     * Churned threads alternate between a name the rule selects and one it does not, beside parked threads of both
     * kinds: every selected thread has its final record and no other thread has one, and once the churn is over
     * the process holds the agent's own descriptors and one per parked selected thread (one event each), so no
     * thread the rule left out holds one.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void churnedThreadsThatRulesSelectAreCountedAndNoOthers(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("selected.jsonl");
        try (AppJvm app = AppJvm.start(java, "threads=sel-.*;events=page-faults;interval=100ms;out=" + out, dir)) {
            app.await("ready");
            long agentsOwn = PerfEventDescriptors.settled(app.pid());
            app.send("park " + PARKED + " sel-kept");
            app.await("parked " + PARKED);
            app.send("park " + PARKED + " kept");
            app.await("parked " + PARKED);
            app.send("churn " + THREADS + " 1 sel,other");
            app.await("churned " + THREADS);
            long expected = agentsOwn + PARKED;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (PerfEventDescriptors.of(app.pid()) != expected && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(
                    expected,
                    PerfEventDescriptors.of(app.pid()),
                    "the agent's own descriptors and one per parked selected thread: none of a thread not selected");
            assertEquals(0, app.finish());
        }
        List<String> selected = Observed.records(out, "thread", "sel-\\d+");
        assertEquals(
                THREADS / 2,
                selected.stream()
                        .map(r -> Observed.string(r, "name"))
                        .distinct()
                        .count(),
                "a final record per selected churned thread");
        assertEquals(THREADS / 2, selected.size(), "one final record each");
        assertEquals(PARKED, Observed.records(out, "thread", "sel-kept-\\d+").size(), "the parked selected threads");
        assertEquals(List.of(), Observed.records(out, "thread", "(other|kept)-\\d+"), "no thread not selected");
    }

    private static long faults(List<String> records) {
        long faults = 0;
        for (String record : records) {
            faults += (long) Observed.number(record, "page-faults");
        }
        return faults;
    }
}
