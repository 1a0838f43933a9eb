package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsFileReader;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the agent could not do reaches the viewers of its stats file, marked as a refusal; with {@code quiet}
 * (what perfpin's CLI passes, showing the notices itself) nothing of it reaches the application's stderr, unless
 * no viewer could read it.
 */
class NoticesIT {
    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void aRefusedPinReachesViewersAndQuietKeepsItOffTheApplicationsStderr(String java, @TempDir Path dir)
            throws Exception {
        try (AppJvm app =
                AppJvm.start(java, "threads=worker-.*;pin=worker-.*@7;events=task-clock;interval=50ms;quiet", dir)) {
            app.await("ready");
            app.send("start worker-1 16");
            app.touched("worker-1");
            Path stats = Observed.statsFile(dir, app.pid());
            List<AgentNotice> notices = List.of();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (notices.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
                try (StatsFileReader reader = Observed.openStats(stats)) {
                    notices = reader.snapshot().notices();
                }
            }
            assertEquals(1, notices.size(), notices.toString());
            assertTrue(
                    notices.get(0).refused() && notices.get(0).text().startsWith("cannot pin thread 'worker-1' (7): "),
                    notices.toString());
            assertEquals(0, app.finish());
            assertEquals(List.of(), app.stderr(), "quiet: the viewers have it");
        }
    }

    /**
     * A rule that cannot pin a pool's threads says so once, naming the first thread, however many it meets (700 here,
     * which once made 501 lines), and how many in all when counting stops.
     */
    @Test
    void aPinRefusedToManyThreadsIsSaidOnceAndThenHowManyInAll(@TempDir Path dir) throws Exception {
        try (AppJvm app = AppJvm.start(AppJvm.ownJava(), "threads=churn-.*;pin=churn-.*@7;events=task-clock", dir)) {
            app.await("ready");
            app.send("churn 700 0 churn");
            app.await("churned 700");
            assertEquals(0, app.finish());
            List<String> said =
                    app.stderr().stream().filter(l -> l.startsWith("[perfpin]")).toList();
            assertEquals(2, said.size(), said.toString());
            assertTrue(said.get(0).startsWith("[perfpin] cannot pin thread 'churn-"), said.get(0));
            assertTrue(
                    said.get(1)
                            .matches("\\[perfpin\\] 700 threads in all could not be pinned \\(7\\), for the reason"
                                    + " said with the first, 'churn-[01]'"),
                    said.get(1));
        }
    }

    @ParameterizedTest
    @MethodSource("javas")
    void withoutAStatsFileQuietStillSaysItOnStderr(String java, @TempDir Path dir) throws Exception {
        try (AppJvm app =
                AppJvm.start(java, "threads=worker-.*;pin=worker-.*@7;events=task-clock;stats=off;quiet", dir)) {
            app.await("ready");
            app.send("start worker-1 16");
            app.touched("worker-1");
            assertEquals(0, app.finish());
            List<String> said = app.stderr();
            assertEquals(1, said.size(), said.toString());
            assertTrue(said.get(0).startsWith("[perfpin] cannot pin thread 'worker-1' (7): "), said.get(0));
        }
    }
}
