package io.perfpin.agent;

import static io.perfpin.agent.JavaagentIT.assertWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.apps.Programs;
import io.perfpin.jvm.AgentLoader;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.StatsSnapshot;
import io.perfpin.testkit.PerfEventDescriptors;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The virtual= option on the second JDK (JDK25_HOME): virtual threads counted over the time they are mounted. */
class VirtualThreadsIT {
    private static final int THREADS = 200;
    private static final int MILLIS = 10;
    private static final int PAGES = 512;

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** Virtual threads alive at once, as a service that runs one per request may have. */
    private static final int MANY = 100_000;
    /** Short virtual threads started at once, whose ended states would take some 140 MB of heap if all were kept. */
    private static final int BURST = 200_000;
    /** The default scheduler lets a carrier go after 30 s idle; the rest for a loaded machine. */
    private static final Duration CARRIER_EXIT = Duration.ofSeconds(120);
    /** The kernel name of the default scheduler's threads, ForkJoinPool-1-worker-N, as /proc cuts it. */
    private static final String CARRIER = "ForkJoinPool-1-";
    /**
     * A pattern of some 100 states, which takes seconds of CPU time to match vlong's name (5 million characters):
     * matching costs the one times the other (RE2/J), on the carrier that selects that virtual thread.
     */
    private static final String SLOW_TO_MATCH = "slow(?:x|xx|xxx|xxxx|xxxxx)*(?:x?){100}=";

    private static String jdk() {
        Assumptions.assumeTrue(Programs.secondJava().isPresent(), "virtual threads need JDK 21+: set JDK25_HOME");
        return Programs.secondJava().orElseThrow();
    }

    /**
     * 200 virtual threads compute 10 ms each in 1 ms slices between sleeps, so that they unmount and change
     * carriers: each has one final record with its own task-clock, and together they ran no longer than the
     * carriers they ran on.
     */
    @Test
    void eachVirtualThreadIsCountedOverItsMountedTime(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(
                java, "virtual=vt-.*;threads=ForkJoinPool-.*;events=task-clock,page-faults;out=" + out, dir)) {
            app.await("ready");
            app.send("vcompute " + THREADS + " vt " + MILLIS);
            app.await("vcomputed " + THREADS);
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "nothing said: " + app.stderr());
        }
        List<String> virtual = Observed.records(out, "thread", "vt-[0-9]+");
        assertEquals(THREADS, virtual.size(), "one final record per virtual thread");
        assertEquals(
                THREADS,
                virtual.stream().map(r -> Observed.string(r, "name")).distinct().count());
        long inRange = 0;
        long sum = 0;
        for (String record : virtual) {
            assertEquals(Boolean.TRUE, Observed.value(record, "virtual"), record);
            assertTrue(Observed.number(record, "mounts") >= MILLIS, "mounted once per slice at least: " + record);
            assertTrue(Observed.number(record, "javaId") > 0, record);
            assertTrue(carriers(record).length >= 1, record);
            long taskClock = (long) Observed.number(record, "task-clock");
            sum += taskClock;
            inRange += taskClock >= 5_000_000 && taskClock <= 16_000_000 ? 1 : 0;
        }
        assertTrue(
                inRange >= THREADS * 9 / 10,
                inRange + " of " + THREADS + " within 5-16 ms of task-clock: "
                        + virtual.stream()
                                .map(r -> (long) Observed.number(r, "task-clock") / 1000)
                                .sorted()
                                .toList() + " us");
        long carriers = 0;
        for (String record : Observed.records(out, "thread", "ForkJoinPool-[0-9]+-worker-[0-9]+")) {
            carriers += (long) Observed.number(record, "task-clock");
        }
        assertTrue(sum <= carriers, "virtual threads " + sum + " ns, their carriers " + carriers + " ns");
    }

    /**
     * A @Counted method on a virtual thread that computes 5 ms, sleeps 200 ms and computes 5 ms again: its task-clock
     * is its computing time, over the two times it was mounted, not its wall time.
     */
    @Test
    void aCountedMethodOnAVirtualThreadCountsItsMountedTimeOnly(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(java, "virtual=none;threads=none;events=task-clock;out=" + out, dir)) {
            app.await("ready");
            app.send("vmethod 5 200");
            app.await("vmethod done");
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "nothing said: " + app.stderr());
        }
        List<String> methods = Observed.records(out, "method", ".*computeAroundSleep.*");
        assertEquals(1, methods.size(), methods.toString());
        assertEquals(1, Observed.number(methods.get(0), "calls"));
        long taskClock = (long) Observed.number(methods.get(0), "task-clock");
        assertTrue(
                taskClock >= 8_000_000 && taskClock <= 13_000_000,
                "10 ms of computing, not 200 ms of sleep: " + taskClock + " ns in " + methods.get(0));
    }

    /** A virtual thread that touches a known number of pages has as many page faults. */
    @Test
    void aVirtualThreadHasThePageFaultsOfItsPages(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(java, "virtual=toucher;threads=none;events=sched;out=" + out, dir)) {
            app.await("ready");
            app.send("vstart toucher " + PAGES);
            app.touched("toucher");
            assertEquals(0, app.finish());
        }
        List<String> records = Observed.records(out, "thread", "toucher");
        assertEquals(1, records.size(), records.toString());
        assertWithin(PAGES, (long) Observed.number(records.get(0), "page-faults"), 0.05, "page faults");
    }

    /** On the JDK running the build, when it has no virtual threads (17): one line, the agent off, the app as ever. */
    @Test
    void theOptionIsOneLineWhereTheJdkHasNoVirtualThreads(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() < 21, "this JDK has virtual threads");
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        try (AppJvm app = AppJvm.start(java, "virtual=vt-.*", dir)) {
            app.await("ready");
            app.send("start plain-1 0");
            app.touched("plain-1");
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "nothing counted");
            assertEquals(0, app.finish());
            List<String> said = app.stderr();
            assertEquals(1, said.size(), said.toString());
            assertTrue(
                    said.get(0).startsWith("[perfpin] ")
                            && said.get(0).contains("'virtual=vt-.*'")
                            && said.get(0).contains("virtual threads need JDK 21 or later")
                            && said.get(0).contains("the agent is off"),
                    said.get(0));
        }
    }

    /**
     * A dynamic attach follows virtual threads too (the capability is added in the live phase), and a detach closes
     * every carrier's counters: nothing is counted or recorded after it.
     */
    @Test
    void attachCountsVirtualThreadsAndDetachGivesEveryCarrierCounterBack(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("attach.jsonl");
        try (AppJvm app = AppJvm.start(java, null, dir)) {
            app.await("ready");
            AgentLoader.load(
                    app.pid(), AppJvm.AGENT_JAR, "virtual=vt-.*;threads=none;events=task-clock;out=" + out, TIMEOUT);
            app.send("vcompute 20 vt 2");
            app.await("vcomputed 20");
            assertTrue(PerfEventDescriptors.of(app.pid()) > 0, "the carriers' counters while attached");
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "detach closed every carrier's counters");
            assertEquals(20, Observed.records(out, "thread", "vt-[0-9]+").size(), "a final record each");
            app.send("vcompute 20 vt 2");
            app.await("vcomputed 20");
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "none opened after detach");
            assertEquals(20, Observed.records(out, "thread", "vt-[0-9]+").size(), "nothing recorded after detach");

            Path again = dir.resolve("again.jsonl");
            AgentLoader.load(
                    app.pid(), AppJvm.AGENT_JAR, "virtual=vt-.*;threads=none;events=task-clock;out=" + again, TIMEOUT);
            app.send("vcompute 20 vt 2");
            app.await("vcomputed 20");
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
            assertEquals(20, Observed.records(again, "thread", "vt-[0-9]+").size(), "counted again after a new attach");
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "and given back again");
            assertEquals(0, app.finish());
            assertTrue(
                    app.stderr().stream().noneMatch(l -> l.startsWith("[perfpin]")),
                    app.stderr().toString());
        }
    }

    /**
     * A carrier still in a callback when a detach stops counting does not hold the detach up. Here the callback that
     * selects a virtual thread matches its name ({@link #SLOW_TO_MATCH}): seconds of CPU time, seen under way as the
     * carriers' CPU time grows by one second (nothing else runs on them). The detach returns, has closed every other
     * carrier's counters, says once which carrier it left, and that carrier closes its own as the callback returns:
     * in the end, no perf_event descriptor is left.
     */
    @Test
    void aCarrierStillInACallbackAtADetachClosesItsCountersWhenTheCallbackReturns(@TempDir Path dir) throws Exception {
        String java = jdk();
        try (AppJvm app = AppJvm.start(java, null, dir)) {
            app.await("ready");
            AgentLoader.load(
                    app.pid(),
                    AppJvm.AGENT_JAR,
                    "virtual=" + SLOW_TO_MATCH + "|vt-.*;threads=none;events=task-clock",
                    TIMEOUT);
            app.send("vcompute 20 vt 2");
            app.await("vcomputed 20");
            assertTrue(PerfEventDescriptors.of(app.pid()) > 0, "the carriers' counters while attached");
            long idle = Observed.cpuTicks(app.pid(), CARRIER);
            app.send("vlong 5000000");
            await(TIMEOUT, () -> Observed.cpuTicks(app.pid(), CARRIER) - idle >= 100, "a carrier in the callback");
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
            assertTrue(
                    PerfEventDescriptors.of(app.pid()) <= 1,
                    "every carrier's counters closed but the one in the callback (task-clock: one descriptor)");
            await(CARRIER_EXIT, () -> PerfEventDescriptors.of(app.pid()) == 0, "the carrier left closed its own");
            app.await("vlong running");
            List<String> said =
                    app.stderr().stream().filter(l -> l.startsWith("[perfpin]")).toList();
            assertEquals(1, said.size(), said.toString());
            assertTrue(
                    said.get(0)
                                    .contains("1 carrier thread was still in a virtual-thread callback 2000 ms after"
                                            + " counting stopped")
                            && said.get(0).contains("closes its counters when that callback returns"),
                    said.get(0));
            assertEquals(0, app.finish());
        }
    }

    /**
     * Virtual threads still running at a detach get their final record there, as platform threads do, saying they
     * still ran, with what they counted so far (their pages' faults); and the carriers' counters are given back.
     */
    @Test
    void virtualThreadsStillRunningAtADetachGetTheirFinalRecord(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("attach.jsonl");
        try (AppJvm app = AppJvm.start(java, null, dir)) {
            app.await("ready");
            AgentLoader.load(
                    app.pid(),
                    AppJvm.AGENT_JAR,
                    "virtual=waiting-.*;threads=none;events=page-faults;out=" + out,
                    TIMEOUT);
            for (int i = 0; i < 3; i++) {
                app.send("vstart waiting-" + i + " " + PAGES);
                app.touched("waiting-" + i);
            }
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "detach closed every carrier's counters");
            List<String> records = Observed.records(out, "thread", "waiting-[0-9]");
            assertEquals(3, records.size(), "a final record each: " + records);
            for (String record : records) {
                assertEquals("running", Observed.string(record, "state"), record);
                assertWithin(PAGES, (long) Observed.number(record, "page-faults"), 0.05, "page faults");
            }
            assertEquals(0, app.finish());
            assertTrue(
                    app.stderr().stream().noneMatch(l -> l.startsWith("[perfpin]")),
                    app.stderr().toString());
        }
    }

    /**
     * Virtual threads that end one after another while a detach stops the counting (four streams of them, each
     * computing 3 ms in slices): none has two final records, and each that ran before the detach began has one,
     * whether it ended before the stop, while it ran, or after. The ones that end inside the stop itself, which once
     * lost their record, are hit by chance only: that window is the stop's own, a few milliseconds at most.
     */
    @Test
    void virtualThreadsEndingWhileADetachStopsHaveOneRecordEach(@TempDir Path dir) throws Exception {
        churnThenDetach(dir, "vc-.*", 3, app -> {}, app -> {
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "detach closed every carrier's counters");
            assertEquals(0, app.finish());
            assertTrue(
                    app.stderr().stream().noneMatch(l -> l.startsWith("[perfpin]")),
                    app.stderr().toString());
        });
    }

    /**
     * Virtual threads that end while a detach waits for a carrier still in a callback (2 s: see
     * {@link #aCarrierStillInACallbackAtADetachClosesItsCountersWhenTheCallbackReturns}) end while the agent stops:
     * each that ran before the detach began has one final record all the same, none two. Four streams of them
     * compute 300 ms each, on the one carrier left (two CPUs), so that those under way as counting stops mostly end
     * within that wait: their end was once not seen at all (the event was off), and they had no record.
     */
    @Test
    void virtualThreadsEndingWhileADetachWaitsForACarrierHaveOneRecordEach(@TempDir Path dir) throws Exception {
        churnThenDetach(
                dir,
                SLOW_TO_MATCH + "|vc-.*",
                300,
                app -> {
                    long idle = Observed.cpuTicks(app.pid(), CARRIER);
                    app.send("vlong 5000000");
                    await(
                            TIMEOUT,
                            () -> Observed.cpuTicks(app.pid(), CARRIER) - idle >= 100,
                            "a carrier in the callback");
                },
                app -> {
                    app.await("vlong running");
                    assertEquals(0, app.finish());
                    List<String> said = app.stderr().stream()
                            .filter(l -> l.startsWith("[perfpin]"))
                            .toList();
                    assertEquals(1, said.size(), said.toString());
                    assertTrue(said.get(0).contains("still in a virtual-thread callback"), said.get(0));
                });
    }

    /**
     * Attaches following the virtual threads named by {@code virtual}, runs {@code before}, starts vchurn's four
     * streams of threads that compute {@code millis} each, and detaches once four have ended; then each that ran
     * before the detach has one record ({@link #assertOneRecordEach}), and {@code after} checks the rest.
     */
    private static void churnThenDetach(Path dir, String virtual, int millis, AppCheck before, AppCheck after)
            throws Exception {
        Path out = dir.resolve("attach.jsonl");
        try (AppJvm app = AppJvm.start(jdk(), null, dir)) {
            app.await("ready");
            AgentLoader.load(
                    app.pid(),
                    AppJvm.AGENT_JAR,
                    "virtual=" + virtual + ";threads=none;events=task-clock;out=" + out,
                    TIMEOUT);
            before.check(app);
            app.send("vchurn 4 vc " + millis);
            app.await("vchurning 4");
            await(TIMEOUT, () -> Observed.records(out, "thread", "vc-.*").size() >= 4, "virtual threads ended");
            long beforeDetach = System.nanoTime();
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
            assertOneRecordEach(app, out, beforeDetach);
            after.check(app);
        }
    }

    private interface AppCheck {
        void check(AppJvm app) throws Exception;
    }

    /**
     * Stops vchurn's four streams and checks their records: no virtual thread has two, and each that ran before
     * {@code beforeDetach} (System.nanoTime(), CLOCK_MONOTONIC, the same in the test and the application), and so was
     * mounted and selected while counting, has one.
     */
    private static void assertOneRecordEach(AppJvm app, Path out, long beforeDetach) throws Exception {
        app.send("vchurned " + beforeDetach);
        Map<String, Long> recorded = Observed.records(out, "thread", "vc-[0-9]+-[0-9]+").stream()
                .collect(Collectors.groupingBy(r -> Observed.string(r, "name"), Collectors.counting()));
        recorded.forEach((name, records) -> assertEquals(1L, records, "one final record: " + name));
        Pattern churned = Pattern.compile("vchurned ([0-9]+) ([0-9]+) ([0-9]+)");
        for (int stream = 0; stream < 4; stream++) {
            Matcher m = app.await(churned);
            int early = Integer.parseInt(m.group(2));
            assertTrue(early > 0, m.group());
            for (int i = 0; i < early; i++) {
                String name = "vc-" + m.group(1) + "-" + i;
                assertTrue(recorded.containsKey(name), name + " ran before the detach: " + recorded.keySet());
            }
        }
        app.await(Pattern.compile("vchurned"));
    }

    /**
     * A virtual thread still running when the JVM exits (SIGTERM: the shutdown hooks run) gets its final record at
     * the exit, saying it still ran, with its pages' faults.
     */
    @Test
    void aVirtualThreadStillRunningAtTheJvmsExitGetsItsFinalRecord(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(java, "virtual=waiting-.*;threads=none;events=page-faults;out=" + out, dir)) {
            app.await("ready");
            app.send("vstart waiting-0 " + PAGES);
            app.touched("waiting-0");
            app.signal("TERM");
            assertEquals(128 + 15, app.awaitExit(), "ended by SIGTERM");
        }
        List<String> records = Observed.records(out, "thread", "waiting-0");
        assertEquals(1, records.size(), records.toString());
        assertEquals("running", Observed.string(records.get(0), "state"), records.get(0));
        assertWithin(PAGES, (long) Observed.number(records.get(0), "page-faults"), 0.05, "page faults");
    }

    /**
     * Virtual threads that already ran when the agent was attached are counted from their next mount: the first
     * mount the agent sees decides, then, whether one is counted.
     */
    @Test
    void virtualThreadsRunningBeforeTheAttachAreCountedFromTheirNextMount(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("attach.jsonl");
        try (AppJvm app = AppJvm.start(java, null, dir)) {
            app.await("ready");
            for (int i = 0; i < 8; i++) {
                app.send("vstart early-" + i + " 0");
                app.touched("early-" + i);
            }
            AgentLoader.load(
                    app.pid(),
                    AppJvm.AGENT_JAR,
                    "virtual=early-[0-3];threads=none;events=task-clock;out=" + out,
                    TIMEOUT);
            assertEquals(0, app.finish());
            assertTrue(
                    app.stderr().stream().noneMatch(l -> l.startsWith("[perfpin]")),
                    app.stderr().toString());
        }
        List<String> records = Observed.records(out, "thread", "early-[0-9]");
        assertEquals(
                List.of("early-0", "early-1", "early-2", "early-3"),
                records.stream().map(r -> Observed.string(r, "name")).sorted().toList(),
                records.toString());
        for (String record : records) {
            assertTrue(Observed.number(record, "mounts") >= 1, record);
        }
    }

    /**
     * The carriers' groups come out of the descriptor budget: with fds=3 the recording and the stats file hold two,
     * one carrier the third; a carrier beyond it is not counted, and that is said once, when counting ends.
     */
    @Test
    void theCarriersCountersStayWithinTheDescriptorBudget(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(java, "virtual=vt-.*;threads=none;fds=3;events=task-clock;out=" + out, dir)) {
            app.await("ready");
            long before = PerfEventDescriptors.settled(app.pid()); // the agent's own, kept for the process
            app.send("vcompute 50 vt 2");
            app.await("vcomputed 50");
            assertTrue(PerfEventDescriptors.of(app.pid()) <= before + 1, "one carrier's group at most");
            assertEquals(0, app.finish());
            List<String> said =
                    app.stderr().stream().filter(l -> l.startsWith("[perfpin]")).toList();
            assertTrue(said.size() <= 1, said.toString());
            said.forEach(line ->
                    assertTrue(line.contains("found no room for their counters") && line.contains("fds="), line));
        }
        assertEquals(50, Observed.records(out, "thread", "vt-[0-9]+").size(), "a final record each all the same");
    }

    /**
     * With fds=3 one carrier has a group and the other none: two carriers (parallelism 2), and two virtual threads
     * that wait for each other, spinning, so that they run at once on both, then compute 50 ms each, yield, and
     * compute 50 ms more on whichever carrier. The mount on the carrier without a group is not counted, and the
     * record of the virtual thread that had it says so: its task-clock's coverage is below 1 (the mount's time is
     * enabled time, not running time, as a multiplexed event's), or, where none of its mounts was counted, its
     * task-clock is not counted at all; never coverage 1 over part of its time.
     */
    @Test
    void aMountOnACarrierWithoutCountersIsSaidInItsVirtualThreadsRecord(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(
                java,
                "virtual=both-.*;threads=none;fds=3;events=task-clock;out=" + out,
                dir,
                "-Djdk.virtualThreadScheduler.parallelism=2",
                "-Djdk.virtualThreadScheduler.maxPoolSize=2")) {
            app.await("ready");
            app.send("vtogether both 50");
            app.await("vtogether both");
            assertEquals(0, app.finish());
        }
        List<String> records = Observed.records(out, "thread", "both-[01]");
        assertEquals(2, records.size(), records.toString());
        long marked = 0;
        for (String record : records) {
            // At least: two virtual threads that run the same code at once may contend on a lock (a class's loading),
            // where JDK 24 and later unmount one once more; the exact count is the yield test's below.
            assertTrue((long) Observed.number(record, "mounts") >= 2, "started, then again after its yield: " + record);
            Object coverage = Observed.value(record, "coverage", "task-clock");
            if (coverage == null) {
                assertEquals("not counted", Observed.value(record, "unsupported", "task-clock"), record);
                marked++;
            } else if (((Number) coverage).doubleValue() < 1) {
                marked++;
            }
        }
        assertTrue(marked >= 1, "the one on the carrier without counters: " + records);
    }

    /**
     * HotSpot posts VirtualThreadStart and then VirtualThreadMount for a virtual thread's first mount: one mount. A
     * virtual thread that yields N times is mounted N + 1 times.
     */
    @Test
    void aVirtualThreadThatYieldsNTimesIsMountedNPlusOneTimes(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        List<Integer> yields = List.of(0, 1, 5, 20);
        try (AppJvm app = AppJvm.start(java, "virtual=y-.*;threads=none;events=task-clock;out=" + out, dir)) {
            app.await("ready");
            for (int n : yields) {
                app.send("vyield " + n + " y-" + n);
                app.await("vyielded y-" + n);
            }
            assertEquals(0, app.finish());
        }
        for (int n : yields) {
            List<String> records = Observed.records(out, "thread", "y-" + n);
            assertEquals(1, records.size(), records.toString());
            assertEquals(n + 1, (long) Observed.number(records.get(0), "mounts"), records.get(0));
        }
    }

    /**
     * A carrier thread that the scheduler lets go, idle past its keep-alive (30 s), closes its group as it exits: its
     * descriptor is given back, and the carrier started after it has a group within the same budget (fds=3: room for
     * one), so that the virtual threads mounted on it are counted too.
     */
    @Test
    void aCarrierThatExitsGivesItsCountersBackToTheNextOne(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(
                java,
                "virtual=vt-.*;threads=none;fds=3;events=task-clock;out=" + out,
                dir,
                // one carrier at a time, so that the first has surely exited before the second starts
                "-Djdk.virtualThreadScheduler.parallelism=1",
                "-Djdk.virtualThreadScheduler.maxPoolSize=1")) {
            app.await("ready");
            long before = PerfEventDescriptors.settled(app.pid()); // the agent's own, kept for the process
            app.send("vcompute 10 vt-a 1");
            app.await("vcomputed 10");
            // the carrier, and on JDK 24 and later the pool's delay scheduler, which stays
            List<Integer> first = Observed.tidsNamed(app.pid(), CARRIER);
            assertFalse(first.isEmpty(), "a carrier ran them");
            assertEquals(before + 1, PerfEventDescriptors.of(app.pid()), "the carrier's group");
            await(
                    CARRIER_EXIT,
                    () -> !Observed.tidsNamed(app.pid(), CARRIER).containsAll(first),
                    "the first carrier exited");
            await(TIMEOUT, () -> PerfEventDescriptors.of(app.pid()) == before, "the exited carrier's group closed");
            app.send("vcompute 10 vt-b 1");
            app.await("vcomputed 10");
            assertEquals(before + 1, PerfEventDescriptors.of(app.pid()), "the next carrier's group");
            assertEquals(0, app.finish());
            List<String> said =
                    app.stderr().stream().filter(l -> l.startsWith("[perfpin]")).toList();
            assertTrue(said.isEmpty(), "every carrier had room: " + said);
        }
        List<String> second = Observed.records(out, "thread", "vt-b-[0-9]+");
        assertEquals(10, second.size(), second.toString());
        for (String record : second) {
            assertTrue(Observed.number(record, "task-clock") > 0, "counted on the next carrier: " + record);
        }
    }

    /**
     * What perfpin keeps for each counted virtual thread is sized for the events counted: 100,000 parked virtual
     * threads counted for task-clock take under 400 bytes each more than the same threads only followed
     * (virtual=none), for which the JVM keeps the same state of its own. Sized for 16 events, it was 640 bytes. Here
     * the difference reads about 245 bytes; the least of two JVMs of each is taken, since what else a JVM's native
     * memory holds only ever adds to it (a run once read 130 bytes more than its usual, counted).
     */
    @Test
    void aCountedVirtualThreadCostsNoMoreMemoryThanItsEventsNeed(@TempDir Path dir) throws Exception {
        String java = jdk();
        long counted = Long.MAX_VALUE;
        long followed = Long.MAX_VALUE;
        for (int i = 0; i < 2; i++) {
            counted = Math.min(
                    counted, residentPerVirtualThread(java, "virtual=vt-.*;threads=none;events=task-clock", dir));
            followed = Math.min(
                    followed, residentPerVirtualThread(java, "virtual=none;threads=none;events=task-clock", dir));
        }
        assertTrue(
                counted - followed < 400,
                "counted " + counted + " bytes a virtual thread, followed only " + followed + " bytes");
    }

    /**
     * virtual-max= bounds the counted virtual threads alive at once, whose states the C library keeps: one selected
     * beyond is not counted, which is said once, and the others are counted as ever.
     */
    @Test
    void virtualThreadsBeyondVirtualMaxAreNotCountedAndThatIsSaidOnce(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app =
                AppJvm.start(java, "virtual=vt-.*;virtual-max=10;threads=none;events=task-clock;out=" + out, dir)) {
            app.await("ready");
            app.send("vpark 50 vt");
            app.await("vparked 50");
            assertEquals(0, app.finish());
            List<String> said =
                    app.stderr().stream().filter(l -> l.startsWith("[perfpin]")).toList();
            assertEquals(
                    List.of("[perfpin] virtual threads beyond 10 counted at once are not counted (virtual-max=10): the"
                            + " C library keeps a state for each, and the option bounds their memory"),
                    said);
        }
        assertEquals(10, Observed.records(out, "thread", "vt-[0-9]+").size(), "the ten counted, still running at exit");
    }

    /**
     * A burst of 200,000 virtual threads that do nothing, in a heap of 48 MB, with no tick while it lasts
     * (interval=30s): those that wait for their records are bounded, and each that ends past them goes to its group's
     * totals without a record; their number is said when counting stops. Nothing runs out of memory, the records and
     * that number are every one of them, and so is the group in the stats file, which the last tick completed.
     */
    @Test
    void aBurstOfShortVirtualThreadsInASmallHeapHasEachInARecordOrInItsGroupsTotals(@TempDir Path dir)
            throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        Path stats;
        List<String> said;
        try (AppJvm app = AppJvm.start(
                java, "virtual=v-.*;threads=none;events=task-clock;interval=30s;out=" + out, dir, "-Xmx48m")) {
            app.await("ready");
            stats = Observed.statsFile(dir, app.pid());
            app.send("vburst " + BURST + " v");
            app.await("vbursted " + BURST);
            assertEquals(0, app.finish());
            said = app.stderr();
        }
        Pattern recordless = Pattern.compile("\\[perfpin\\] ([0-9]+) virtual threads have no record of their own in the"
                + " recording: 16384 others waited for the next tick as they ended; their counts are in their groups'"
                + " totals \\(the stats file, the metrics export\\)");
        List<Long> left = said.stream()
                .map(recordless::matcher)
                .filter(Matcher::matches)
                .map(m -> Long.parseLong(m.group(1)))
                .toList();
        assertEquals(1, left.size(), "their number said once: " + said);
        assertTrue(left.get(0) > 0, "a burst with no tick went past the bound");
        List<String> records = Observed.records(out, "thread", "v-[0-9]+");
        assertEquals(BURST, records.size() + left.get(0), "a record each, or said left without: " + said);
        for (String record : records) {
            assertTrue(Observed.value(record, "counters", "task-clock") instanceof Number, record);
        }
        assertTrue(
                groupSlot(stats, "v", StatsLayout.STATE_VIRTUAL_GROUP, BURST) >= 0,
                "the group in the stats file has every one of them");
    }

    /** The resident memory that each of 100,000 parked virtual threads adds, in bytes. */
    private static long residentPerVirtualThread(String java, String options, Path dir) throws Exception {
        // The heap touched whole at the start, so that what grows is the JVM's and perfpin's native memory; one
        // carrier, so that perfpin's states come from one of malloc's arenas, not from as many as carriers ran.
        try (AppJvm app = AppJvm.start(
                java,
                options,
                dir,
                "-Xms768m",
                "-Xmx768m",
                "-XX:+AlwaysPreTouch",
                "-Djdk.virtualThreadScheduler.parallelism=1",
                "-Djdk.virtualThreadScheduler.maxPoolSize=1")) {
            app.await("ready");
            long before = Observed.residentKib(app.pid());
            app.send("vpark " + MANY + " vt");
            app.await("vparked " + MANY);
            long after = Observed.residentKib(app.pid());
            assertEquals(0, app.finish());
            return (after - before) * 1024 / MANY;
        }
    }

    /** Waits for {@code condition} until {@code deadline} has passed. */
    private static void await(Duration deadline, IoCondition condition, String what) throws Exception {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + deadline.toSeconds() + " s: " + what);
            }
            Thread.sleep(100);
        }
    }

    private interface IoCondition {
        boolean holds() throws Exception;
    }

    /**
     * Virtual threads that compute and then stay alive (a connection's handler) show in the stats file while they
     * run, before any ends: their group's running slot counts all 8, with their task-clock so far, and none ended.
     * Released, they end: the group's ended slot counts the 8 and none runs.
     */
    @Test
    void runningVirtualThreadsShowInTheStatsFileBeforeTheyEnd(@TempDir Path dir) throws Exception {
        String java = jdk();
        try (AppJvm app = AppJvm.start(java, "virtual=vh-.*;threads=none;events=task-clock;interval=100ms", dir)) {
            app.await("ready");
            Path stats = Observed.statsFile(dir, app.pid());
            try {
                app.send("vhold 8 vh 5");
                app.await("vholding 8");
                await(
                        TIMEOUT,
                        () -> groupSlot(stats, "vh", StatsLayout.STATE_VIRTUAL_RUNNING, 8) > 0,
                        "8 running, with task-clock, in the running slot");
                assertEquals(0, groupSlot(stats, "vh", StatsLayout.STATE_VIRTUAL_GROUP, 0), "none ended yet");
            } finally {
                app.send("vrelease");
            }
            app.await("vreleased 8");
            await(
                    TIMEOUT,
                    () -> groupSlot(stats, "vh", StatsLayout.STATE_VIRTUAL_GROUP, 8) > 0
                            && groupSlot(stats, "vh", StatsLayout.STATE_VIRTUAL_RUNNING, 0) >= 0,
                    "8 ended, with task-clock, and none running");
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "nothing said: " + app.stderr());
        }
    }

    /**
     * The sampler sums the running members 1,024 at a time, letting the lock go between two chunks, while others start
     * and end around its place in the list: 5,000 parked virtual threads show as exactly 5,000 running at every look,
     * while four streams of short ones start and end all along, and the sampler ticks every millisecond.
     */
    @Test
    void parkedVirtualThreadsAreCountedExactlyWhileOthersStartAndEnd(@TempDir Path dir) throws Exception {
        String java = jdk();
        try (AppJvm app = AppJvm.start(java, "virtual=vp-.*|vc-.*;threads=none;events=task-clock;interval=1ms", dir)) {
            app.await("ready");
            Path stats = Observed.statsFile(dir, app.pid());
            app.send("vpark 5000 vp");
            app.await("vparked 5000");
            await(TIMEOUT, () -> groupSlot(stats, "vp", StatsLayout.STATE_VIRTUAL_RUNNING, 5000) >= 0, "5000 running");
            app.send("vchurn 4 vc 1");
            app.await("vchurning 4");
            try {
                for (int look = 0; look < 100; look++) {
                    assertTrue(
                            groupSlot(stats, "vp", StatsLayout.STATE_VIRTUAL_RUNNING, 5000) >= 0,
                            "5000 running at look " + look);
                }
            } finally {
                app.send("vchurned " + System.nanoTime());
            }
            app.await(Pattern.compile("vchurned"));
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "nothing said: " + app.stderr());
        }
    }

    /**
     * The task-clock of group {@code group}'s slot of {@code state} in the stats file, when that slot counts
     * {@code threads}; -1 otherwise (or when there is no such slot yet).
     */
    private static long groupSlot(Path stats, String group, int state, int threads) throws Exception {
        StatsSnapshot snapshot;
        try (StatsFileReader reader = Observed.openStats(stats)) {
            snapshot = reader.snapshot();
        }
        int column = snapshot.eventNames().indexOf("task-clock");
        return snapshot.threads().stream()
                .filter(s -> s.state() == state && s.name().equals(group) && s.threads() == threads && column >= 0)
                .mapToLong(s -> s.raw(column))
                .findFirst()
                .orElse(-1);
    }

    /**
     * Prometheus has virtual threads by group only: once every one has ended, the group's series holds the sum of
     * their final records, and no virtual thread has a series of its own.
     */
    @Test
    void prometheusHasVirtualThreadsByGroupOnly(@TempDir Path dir) throws Exception {
        String java = jdk();
        Path out = dir.resolve("run.jsonl");
        int port = PrometheusServer.freePort();
        try (AppJvm app = AppJvm.start(
                java,
                "virtual=vt-.*;threads=none;events=task-clock,page-faults;interval=100ms;" + "export-threads=.*;out="
                        + out + ";prometheus=127.0.0.1:" + port,
                dir)) {
            app.await("ready");
            app.send("vcompute 100 vt 1");
            app.await("vcomputed 100");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String metrics = "";
            long recorded = -1;
            Pattern group = Pattern.compile("perfpin_thread_page_faults_total\\{thread_group=\"vt\"} ([0-9.e+]+)");
            while (System.nanoTime() < deadline) {
                List<String> records = Observed.records(out, "thread", "vt-[0-9]+");
                metrics = PrometheusIT.get(port, "/metrics", null);
                Matcher m = group.matcher(metrics);
                recorded = records.stream()
                        .mapToLong(r -> (long) Observed.number(r, "page-faults"))
                        .sum();
                if (records.size() == 100 && m.find() && (long) Double.parseDouble(m.group(1)) == recorded) {
                    break;
                }
                Thread.sleep(100);
            }
            Matcher m = group.matcher(metrics);
            assertTrue(
                    m.find() && (long) Double.parseDouble(m.group(1)) == recorded,
                    "the vt group holds the " + recorded + " page faults of the 100 records: " + metrics);
            assertFalse(metrics.contains("thread=\"vt-"), "no virtual thread has a series of its own: " + metrics);
            assertEquals(0, app.finish());
        }
    }

    private static int[] carriers(String record) {
        Matcher m = Pattern.compile("\"carriers\":\\[([0-9,]*)]").matcher(record);
        assertTrue(m.find(), record);
        return m.group(1).isEmpty()
                ? new int[0]
                : java.util.Arrays.stream(m.group(1).split(","))
                        .mapToInt(Integer::parseInt)
                        .toArray();
    }
}
