package io.perfpin.agent;

import static io.perfpin.agent.JavaagentIT.assertWithin;
import static io.perfpin.agent.JavaagentIT.awaitLive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.jvm.AgentLoader;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.testkit.PerfEventDescriptors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The agent loaded into a JVM that already runs, and detached from it again. */
class AttachIT {
    private static final int PAGES = 16384;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void attachEnrolsRunningAndLaterThreadsAndDetachUndoesEverything(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("attach.jsonl");
        try (AppJvm app = AppJvm.start(java, null, dir)) {
            app.await("ready");
            app.send("start early-1 0");
            int early = app.touched("early-1");
            assertEquals(0, PerfEventDescriptors.of(app.pid()));

            AgentLoader.load(
                    app.pid(),
                    AppJvm.AGENT_JAR,
                    "threads=(early|late)-.*;pin=early-.*@1;events=sched;" + "interval=50ms;out=" + out,
                    TIMEOUT);
            assertEquals("1", Observed.awaitCpusAllowed(app.pid(), early, "1"), "a running thread pinned on attach");
            Path stats = Observed.statsFile(dir, app.pid());
            awaitLive(stats, early, "task-clock", 0);
            assertTrue(PerfEventDescriptors.of(app.pid()) > 0, "counters open while attached");

            app.send("start late-1 " + PAGES);
            int late = app.touched("late-1");
            assertWithin(
                    PAGES,
                    awaitLive(stats, late, "page-faults", PAGES).getAsLong(),
                    0.03,
                    "a thread started after attach, counted from its start");

            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
            assertEquals("0-1", Observed.cpusAllowed(app.pid(), early), "detach restored the affinity");
            try (StatsFileReader reader = Observed.openStats(stats)) {
                assertTrue(reader.isClosed(), "the stats file says the agent left");
            }
            assertEquals(1, Observed.records(out, "thread", "early-1").size(), "a final record at detach");
            assertEquals(1, Observed.records(out, "thread", "late-1").size());
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "detach closed every counter");
            app.send("start late-2 16");
            app.touched("late-2");
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "after detach no thread is enrolled");
            assertEquals(1, Observed.records(out, "thread", "early-1").size(), "nothing recorded after detach");
            assertEquals(0, app.finish());
            List<String> said = app.stderr();
            assertTrue(said.stream().noneMatch(l -> l.startsWith("[perfpin]")), "the agent said nothing: " + said);
        }
    }
}
