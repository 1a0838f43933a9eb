package io.perfpin.agent;

import static io.perfpin.agent.JavaagentIT.awaitLive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.jvm.AgentLoader;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.testkit.PerfEventDescriptors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The agent keeps to its share of the application's file descriptors, and the application keeps the rest. */
class DescriptorBudgetIT {
    private static final int OPEN_FILES = 20_000;
    private static final int PARKED = 3_300;
    /**
     * The sched preset's six software events: cycles and instructions of ipc are refused on a machine without a PMU.
     */
    private static final int SCHED_EVENTS = 6;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String BUDGET_SPENT = "perfpin's share of this process's file descriptors (";
    private static final String OUT_OF_DESCRIPTORS = "this process is out of file descriptors";
    private static final String THREAD_NOT_COUNTED = "thread not counted: ";

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void attachedToThousandsOfThreadsTheAgentTakesItsShareAndTheApplicationStillOpensItsFiles(
            String java, @TempDir Path dir) throws Exception {
        assumeTrue(Observed.hardOpenFileLimit() >= OPEN_FILES, "needs a hard RLIMIT_NOFILE of " + OPEN_FILES);
        Path out = dir.resolve("budget.jsonl");
        StatsFileReader stats;
        long budget;
        try (AppJvm app = AppJvm.withOpenFileLimit(OPEN_FILES, java, null, dir)) {
            app.await("ready");
            app.send("park " + PARKED + " parked");
            app.await("parked " + PARKED);
            // The default events, ipc and sched: six descriptors a thread here, as in the review that found this.
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "interval=100ms;out=" + out, TIMEOUT);
            stats = Observed.openStats(Observed.statsFile(dir, app.pid()));
            await(() -> Observed.threadsNotCounted(stats) > 0, "the stats file counts threads not counted");
            budget = stats.snapshot().descriptorBudget();
            assertTrue(
                    budget > OPEN_FILES / 4 - 200 && budget <= OPEN_FILES / 4,
                    "a quarter of what the application had free: " + budget);
            Path statsFile = Observed.statsFile(dir, app.pid());
            // Once the sampler has shown every counted thread: its own six held switched on, and six a thread.
            await(
                    () -> PerfEventDescriptors.of(app.pid()) == SCHED_EVENTS * (1 + liveThreads(statsFile)),
                    "the kernel's perf_event descriptors are those of the threads counted");
            long held = PerfEventDescriptors.of(app.pid());
            // The recording holds one more; what is left is less than a thread's six.
            assertTrue(held <= budget - 1 && held > budget - 1 - SCHED_EVENTS, held + " of " + budget);

            app.send("open 1000");
            Matcher opened = app.await(Pattern.compile("opened (\\d+) of 1000(: .*)?"));
            assertEquals(
                    1000,
                    Integer.parseInt(opened.group(1)),
                    "the application opens every file it asks for: " + opened.group());
            closed(app);
            assertEquals(0, app.finish());
            List<String> said = perfpinLines(app);
            assertTrue(
                    said.stream()
                            .anyMatch(l -> l.startsWith("[perfpin] not counting threads while no file"
                                    + " descriptor is left for them: " + BUDGET_SPENT + budget + ", fds=25% of the ")),
                    said.toString());
        }
        List<String> parked = Observed.records(out, "thread", "parked-\\d+");
        assertEquals(PARKED, parked.size(), "a final record for every thread, counted or not");
        List<String> finals = Observed.records(out, "thread", "[^\"]+");
        List<String> notCounted = finals.stream()
                .filter(r -> String.valueOf(Observed.value(r, "unsupported", "task-clock"))
                        .startsWith(THREAD_NOT_COUNTED + BUDGET_SPENT))
                .collect(Collectors.toList());
        assertEquals(stats.snapshot().threadsNotCounted(), notCounted.size(), "the stats file and the records agree");
        assertTrue(
                notCounted.stream().allMatch(r -> Map.of().equals(Observed.value(r, "counters"))),
                "with no counts at all");
        long counted = finals.stream()
                .filter(r -> Observed.value(r, "counters", "task-clock") instanceof Long)
                .count();
        System.out.println("budget: " + budget + " descriptors; threads counted: " + counted + ", not counted: "
                + notCounted.size());
        assertEquals(finals.size(), counted + notCounted.size(), "every thread either counted or not, with why");
    }

    @ParameterizedTest
    @MethodSource("javas")
    void aThreadMetByTheProcessOutOfDescriptorsIsNotCountedAndALaterOneIs(String java, @TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("emfile.jsonl");
        // Every free descriptor may be perfpin's: the kernel, not the budget, says when there is none left.
        try (AppJvm app = AppJvm.withOpenFileLimit(
                512, java, "threads=short-.*;events=page-faults;fds=100%;interval=50ms;out=" + out, dir)) {
            app.await("ready");
            // The sampler reads the run's record (/sys, /proc) at its first tick, a descriptor at a time: filled
            // meanwhile, the table would get one back when it closes it.
            awaitTicks(Observed.statsFile(dir, app.pid()), 2);
            app.send("open 100000");
            // The facts: fewer files than asked for, and the kernel's EMFILE said why.
            Matcher opened = app.await(Pattern.compile("opened (\\d+) of 100000: (.*)"));
            assertTrue(Integer.parseInt(opened.group(1)) < 100_000, opened.group());
            assertTrue(opened.group(2).endsWith("Too many open files"), opened.group());
            // Another thread (the sampler reading /proc) may have freed a descriptor since: taken again at the start.
            app.send("starved short-1 0");
            app.touched("short-1");
            closed(app);
            app.send("start short-2 64");
            int counted = app.touched("short-2");
            awaitLive(Observed.statsFile(dir, app.pid()), counted, "page-faults", 64);
            StatsFileReader stats = Observed.openStats(Observed.statsFile(dir, app.pid()));
            assertEquals(1, stats.snapshot().threadsNotCounted());
            assertEquals(0, app.finish());
            List<String> said = perfpinLines(app);
            assertEquals(1, said.size(), said.toString());
            assertTrue(
                    said.get(0)
                            .startsWith("[perfpin] not counting threads while no file descriptor is left for"
                                    + " them: " + OUT_OF_DESCRIPTORS),
                    said.get(0));
        }
        String notCounted = Observed.records(out, "thread", "short-1").get(0);
        assertEquals(Map.of(), Observed.value(notCounted, "counters"), notCounted);
        assertTrue(
                String.valueOf(Observed.value(notCounted, "unsupported", "page-faults"))
                        .startsWith(THREAD_NOT_COUNTED + OUT_OF_DESCRIPTORS),
                notCounted);
        assertTrue(Observed.number(Observed.records(out, "thread", "short-2").get(0), "page-faults") >= 64);
    }

    private static void closed(AppJvm app) throws IOException, InterruptedException {
        app.send("close");
        app.await("closed");
    }

    private static int liveThreads(Path statsFile) {
        try {
            return Observed.liveThreads(statsFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<String> perfpinLines(AppJvm app) {
        return app.stderr().stream().filter(l -> l.startsWith("[perfpin]")).collect(Collectors.toList());
    }

    /** Until the agent's sampler has published {@code ticks} more ticks (its heartbeat changed that often). */
    private static void awaitTicks(Path statsFile, int ticks) throws IOException, InterruptedException {
        try (StatsFileReader stats = Observed.openStats(statsFile)) {
            for (int i = 0; i < ticks; i++) {
                long before = stats.heartbeatEpochMillis();
                await(
                        () -> {
                            try {
                                return stats.heartbeatEpochMillis() != before;
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        },
                        "the sampler ticked");
            }
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("never happened: " + what);
            }
            Thread.sleep(20);
        }
    }
}
