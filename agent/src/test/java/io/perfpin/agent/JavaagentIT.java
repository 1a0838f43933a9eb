package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.agent.apps.AgentTestApp;
import io.perfpin.agent.apps.MainEndsFirst;
import io.perfpin.apps.MainReached;
import io.perfpin.apps.Programs;
import io.perfpin.files.EffectiveUser;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.testkit.SlowAgentStart;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The agent from -javaagent, on a real kernel, observed from outside the application. */
class JavaagentIT {
    /** 64 MiB: one fault per page, and a few from starting a thread. */
    private static final int PAGES = 16384;

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void annotationsPinAndCountTheTaskThread(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(java, "events=sched;interval=50ms;out=" + out, dir)) {
            app.await("ready");
            app.send("annotated annotated-1 " + PAGES);
            int tid = app.touched("annotated-1");
            assertEquals("1", Observed.cpusAllowed(app.pid(), tid), "@Pinned(\"1\") seen in /proc");
            OptionalLong faults = awaitLive(Observed.statsFile(dir, app.pid()), tid, "page-faults", PAGES);
            assertWithin(PAGES, faults.getAsLong(), 0.03, "live page faults in the stats file");
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());
        }
        List<String> finals = Observed.records(out, "thread", "annotated-1");
        assertEquals(1, finals.size(), "one final record");
        assertWithin(PAGES, (long) Observed.number(finals.get(0), "page-faults"), 0.03, "final page faults");
        assertEquals("1", Observed.string(finals.get(0), "cpus"));
        assertFalse(Observed.records(out, "sample", "annotated-1").isEmpty(), "samples while it ran");
    }

    @ParameterizedTest
    @MethodSource("javas")
    void nameRulesPinAndCountThreadsOfAnAppWithoutAnnotations(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app =
                AppJvm.start(java, "threads=toucher-.*;pin=toucher-1@0;events=sched;interval=50ms;out=" + out, dir)) {
            app.await("ready");
            app.send("start toucher-1 " + PAGES);
            app.send("start toucher-2 " + PAGES);
            app.send("start other-1 " + PAGES);
            int pinned = app.touched("toucher-1");
            int counted = app.touched("toucher-2");
            int ignored = app.touched("other-1");
            assertEquals("0", Observed.cpusAllowed(app.pid(), pinned));
            assertEquals("0-1", Observed.cpusAllowed(app.pid(), counted));
            Path stats = Observed.statsFile(dir, app.pid());
            assertWithin(PAGES, awaitLive(stats, counted, "page-faults", PAGES).getAsLong(), 0.03, "toucher-2");
            assertTrue(Observed.liveValue(stats, ignored, "page-faults").isEmpty(), "other-1 is not counted");
            assertEquals(0, app.finish());
        }
        assertEquals(1, Observed.records(out, "thread", "toucher-1").size());
        assertEquals(1, Observed.records(out, "thread", "toucher-2").size());
        assertTrue(Observed.records(out, "thread", "other-1").isEmpty());
        assertTrue(Observed.records(out, "thread", "main").isEmpty());
    }

    /**
     * docs/agent-options.md#how-the-agent-starts: premain returns before the agent is up, and main(), which the rules
     * leave out, runs at once; a thread that it starts at once and the rules count waits for the agent, so it is still
     * counted from its first instruction. (Where the rules count main, premain opens its counters before it returns:
     * {@link #mainThatTheRulesCountRunsBeforeTheAgentIsUpAndIsCountedWhole}.)
     */
    @ParameterizedTest
    @MethodSource("javas")
    void aThreadThatMainStartsAtOnceWaitsForTheAgentAndIsCountedWhole(String java, @TempDir Path dir) throws Exception {
        untilOneRunsBeforeTheAgent(EARLY_BEFORE, out -> earlyThreadCountedWhole(java, out, dir), dir, "early-");
    }

    private static final int EARLY_ATTEMPTS = 5;
    private static final String EARLY_BEFORE = "early started before the agent was up";

    /** What main() said of the agent as it started the early thread, once that thread was checked counted whole. */
    private static String earlyThreadCountedWhole(String java, Path out, Path dir) throws Exception {
        String said;
        try (AppJvm app = AppJvm.start(
                java,
                "threads=early;events=page-faults;out=" + out,
                dir,
                "-D" + AgentTestApp.EARLY + "=early:" + PAGES)) {
            said = app.await("early started ");
            app.touched("early");
            app.await("ready");
            assertEquals(0, app.finish());
        }
        // Above its pages, what it ran first in this JVM (the classes touching loads, which main loads later for the
        // other tests' threads): 513 faults on JDK 25.
        assertPagesCountedWhole(out, "early", said);
        assertTrue(Observed.records(out, "thread", "main").isEmpty(), "main, which the rules leave out");
        return said;
    }

    /**
     * docs/agent-options.md#how-the-agent-starts: where the rules count main without pinning it, premain opens main's
     * counters and returns, and the agent starts beside main(); main is counted from premain on, its first instruction
     * in main() included, and its final record written as the JVM exits.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void mainThatTheRulesCountRunsBeforeTheAgentIsUpAndIsCountedWhole(String java, @TempDir Path dir) throws Exception {
        untilOneRunsBeforeTheAgent(MAIN_BEFORE, out -> mainCountedWhole(java, out, dir), dir, "main-");
    }

    private static final String MAIN_BEFORE = "main touched " + PAGES + " before the agent was up";

    /** What main() said of the agent as it touched its pages, once main was checked counted whole. */
    private static String mainCountedWhole(String java, Path out, Path dir) throws Exception {
        String said;
        try (AppJvm app = AppJvm.start(
                java,
                "threads=main;events=page-faults;out=" + out,
                dir,
                "-D" + AgentTestApp.MAIN_TOUCH + "=" + PAGES)) {
            said = app.await("main touched ");
            app.await("ready");
            assertEquals(0, app.finish());
        }
        // Above its pages, the classes that main() loads and runs first in this JVM, the test's commands included.
        assertPagesCountedWhole(out, "main", said);
        return said;
    }

    /**
     * docs/agent-options.md#how-the-agent-starts: a start held back past its deadline while main() has ended already.
     * main's counters close with main, so no record claims what its thread does after (it runs on as the JVM's
     * DestroyJavaVM, which waits for the other thread); the late start is said once, and the agent still comes up.
     */
    @Test
    void mainThatEndsBeforeALateAgentIsNotRecorded(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("late.jsonl");
        try (AppJvm app = AppJvm.startMain(
                MainEndsFirst.class,
                // main() ends within a second, the agent is up 3 s after premain, the JVM exits 6 s after main()
                List.of("1024", "6000"),
                AppJvm.ownJava(),
                "threads=main;events=page-faults;out=" + out,
                dir,
                SlowAgentStart.option(dir, 3_000))) {
            app.await("main ended");
            app.await("lingered");
            assertEquals(0, app.awaitExit());
            assertEquals(
                    1,
                    app.stderr().stream()
                            .filter(l -> l.contains("the agent took more than 2000 ms to start"))
                            .count(),
                    "the late start, said once: " + app.stderr());
        }
        assertTrue(Files.exists(out), "the agent came up, late, and recorded");
        assertTrue(Observed.records(out, "thread", "main").isEmpty(), "no record of main, which ended before");
    }

    /** One JVM's run, recording to {@code out}: what main() said of the agent. */
    private interface EarlyRun {
        String run(Path out) throws Exception;
    }

    /**
     * Which of main() and the agent's start comes first is the scheduler's to say: on a loaded host the agent can be up
     * before main() looks. Each JVM is checked whole either way, and until one says {@code before}.
     */
    private static void untilOneRunsBeforeTheAgent(String before, EarlyRun jvm, Path dir, String prefix)
            throws Exception {
        List<String> seen = new ArrayList<>();
        for (int attempt = 0; attempt < EARLY_ATTEMPTS && !seen.contains(before); attempt++) {
            seen.add(jvm.run(dir.resolve(prefix + attempt + ".jsonl")));
        }
        assertTrue(seen.contains(before), "no JVM's main() ran before the agent was up: " + seen);
    }

    /** {@code thread}'s one final record counts all of its PAGES (-3% to +10%): none lost before the agent was up. */
    private static void assertPagesCountedWhole(Path out, String thread, String said) throws IOException {
        List<String> records = Observed.records(out, "thread", thread);
        assertEquals(1, records.size(), thread + "'s final record");
        long faults = (long) Observed.number(records.get(0), "page-faults");
        assertTrue(
                faults >= PAGES * 0.97 && faults <= PAGES * 1.10,
                thread + "'s faults (" + said + "): expected " + PAGES + " (-3% to +10%), got " + faults);
    }

    /** A rule whose placement chooses the CPUs says which it chose, once, on the application's stderr. */
    @ParameterizedTest
    @MethodSource("javas")
    void theCoreThatPinCoreChoseIsSaidOnce(String java, @TempDir Path dir) throws Exception {
        try (AppJvm app = AppJvm.start(java, "threads=toucher-.*;pin=toucher-1@core;events=sched", dir)) {
            app.await("ready");
            app.send("start toucher-1 " + PAGES);
            String cpus = Observed.cpusAllowed(app.pid(), app.touched("toucher-1"));
            assertEquals(0, app.finish());
            assertEquals(
                    List.of("[perfpin] pin=core placed toucher-1 on " + (cpus.matches("\\d+") ? "CPU " : "CPUs ")
                            + cpus),
                    app.stderr().stream().filter(l -> l.startsWith("[perfpin]")).collect(Collectors.toList()));
        }
    }

    /**
     * Without perfpin's C library the JVM reports no thread starts to the agent: it weaves Thread.run(). Its hooks
     * then reach the bootstrap class loader in a jar appended to its search, for which HotSpot prints one line.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void withoutTheCLibraryThreadRunIsWovenAndTheRulesStillApply(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(
                java, "threads=toucher-.*;pin=toucher-1@1;events=sched;out=" + out, dir, "-Dperfpin.backend=jna")) {
            app.await("ready");
            app.send("start toucher-1 " + PAGES);
            app.send("annotated annotated-1 16");
            int pinned = app.touched("toucher-1");
            assertEquals("1", Observed.cpusAllowed(app.pid(), pinned));
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("annotated-1")));
            assertEquals(0, app.finish());
            List<String> said = app.stderr();
            assertTrue(
                    said.size() <= 1 && said.stream().allMatch(line -> line.endsWith(AppJvm.CDS_WARNING)),
                    "at most the JVM's one line about the hooks' jar: " + said);
        }
        assertWithin(
                PAGES,
                (long) Observed.number(
                        Observed.records(out, "thread", "toucher-1").get(0), "page-faults"),
                0.03,
                "toucher-1 counted from its start");
    }

    @ParameterizedTest
    @MethodSource("javas")
    void aThreadStartedByAPinnedThreadGetsTheProcessAffinityUnlessARuleLetsItInherit(String java, @TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(
                java, "threads=(child|heir)-.*;pin=parent-.*@1;inherit=heir-.*;events=sched;out=" + out, dir)) {
            app.await("ready");
            app.send("spawn parent-1 child-1");
            app.send("spawn parent-2 heir-1");
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("parent-1")));
            assertEquals("0-1", Observed.cpusAllowed(app.pid(), app.touched("child-1")));
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("heir-1")));
            assertEquals(0, app.finish());
        }
        assertEquals(
                "perfpin",
                Observed.string(Observed.records(out, "thread", "parent-1").get(0), "pin"));
        assertEquals(
                "none",
                Observed.string(Observed.records(out, "thread", "child-1").get(0), "pin"));
        assertEquals(
                "inherited",
                Observed.string(Observed.records(out, "thread", "heir-1").get(0), "pin"));
    }

    /**
     * Two threads of an application's Thread subclass that are equal by value (as Lombok's @EqualsAndHashCode makes
     * them) are two threads to the agent: each is pinned and counted, and the end of the one is its own, not the
     * other's, whose pin stays while it lives. Each gets one final record.
     */
    @Test
    void threadsEqualByValueAreCountedApartAndTheEndOfOneLeavesTheOthersPin(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        String secondCpus;
        try (AppJvm app = AppJvm.start(
                AppJvm.ownJava(), "threads=eq-.*;pin=eq-.*@1;events=sched;interval=50ms;out=" + out, dir)) {
            app.await("ready");
            app.send("equal eq-1 io");
            int pinned = app.touched("eq-1");
            app.send("equal eq-2 io");
            secondCpus = Observed.cpusAllowed(app.pid(), app.touched("eq-2"));
            assertEquals("1", Observed.cpusAllowed(app.pid(), pinned));
            app.send("end eq-2");
            app.await("ended eq-2");
            // the first final record of either is the one of the thread that ended
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            List<String> finals = Observed.records(out, "thread", "eq-[12]");
            while (finals.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
                finals = Observed.records(out, "thread", "eq-[12]");
            }
            assertEquals(
                    List.of("eq-2"),
                    finals.stream().map(r -> Observed.string(r, "name")).toList());
            assertEquals("1", Observed.cpusAllowed(app.pid(), pinned), "eq-1 keeps its pin after eq-2's end");
            assertEquals(0, app.finish());
        }
        List<String> first = Observed.records(out, "thread", "eq-1");
        assertEquals(1, first.size(), first.toString());
        assertEquals("perfpin", Observed.string(first.get(0), "pin"));
        assertEquals("1", Observed.string(first.get(0), "cpus"));
        List<String> second = Observed.records(out, "thread", "eq-2");
        assertEquals("1", secondCpus, "eq-2 was pinned as eq-1 is");
        assertEquals(1, second.size(), second.toString());
        assertEquals("perfpin", Observed.string(second.get(0), "pin"));
    }

    /**
     * A thread the application pinned itself (taskset here, as JNI or an affinity library would) starts its children on
     * its CPUs, as without the agent, even while perfpin has another thread pinned to the same CPUs; a child of a
     * thread that perfpin pinned still gets the process's affinity back.
     */
    @Test
    void aChildOfAThreadTheApplicationPinnedItselfKeepsItsCpus(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Programs.onPath("taskset").isPresent(), "needs taskset");
        try (AppJvm app = AppJvm.start(AppJvm.ownJava(), "threads=w-.*|child-.*;pin=w-.*@1;events=sched", dir)) {
            app.await("ready");
            app.send("start w-0 0");
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("w-0")));
            app.send("selfpin app-io 1 app-child");
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("app-io")));
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("app-child")), "as its creator left it");
            app.send("spawn w-1 child-1");
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("w-1")));
            assertEquals("0-1", Observed.cpusAllowed(app.pid(), app.touched("child-1")), "perfpin's pin not inherited");
            assertEquals(0, app.finish());
        }
    }

    @ParameterizedTest
    @MethodSource("javas")
    void countedMethodsKeepCallsTotalsAndPercentiles(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(java, "threads=none;out=" + out, dir)) {
            app.await("ready");
            app.send("method 20 256");
            app.await("called 20");
            assertEquals(0, app.finish());
        }
        List<String> methods = Observed.records(out, "method", "io.perfpin.agent.apps.CountedWork.touch\\(int\\)");
        assertEquals(1, methods.size(), "one final method record");
        String record = methods.get(0);
        assertEquals(20, Observed.number(record, "calls"));
        assertWithin(
                20 * 256, (Long) Observed.value(record, "counters", "page-faults"), 0.03, "page faults of 20 calls");
        assertWithin(256, (Long) Observed.value(record, "p50", "page-faults"), 0.04, "median page faults per call");
    }

    @Test
    void aVirtualThreadIsNeitherPinnedNorCountedAndSaysSoOnce(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Programs.secondJava().isPresent(), "virtual threads need JDK 21+: set JDK25_HOME");
        String jdk25 = Programs.secondJava().orElseThrow();
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(jdk25, "threads=none;events=sched;out=" + out, dir)) {
            app.await("ready");
            app.send("virtual virtual-1 16");
            app.send("virtual virtual-2 16");
            int carrier = app.touched("virtual-1");
            app.touched("virtual-2");
            assertEquals("0-1", Observed.cpusAllowed(app.pid(), carrier), "the carrier was not pinned");
            assertEquals(0, app.finish());
            List<String> said =
                    app.stderr().stream().filter(l -> l.startsWith("[perfpin]")).collect(Collectors.toList());
            assertEquals(1, said.size(), said.toString());
            assertTrue(said.get(0).contains("virtual threads are not pinned or counted"), said.get(0));
        }
        assertTrue(Observed.records(out, "thread", ".*").isEmpty(), "nothing counted");
    }

    @ParameterizedTest
    @MethodSource("javas")
    void invalidOptionsLeaveTheApplicationExactlyAsWithoutTheAgent(String java, @TempDir Path dir) throws Exception {
        List<String> plain = session(java, null, dir);
        for (String bad : List.of(
                "bogus=1",
                "events=cycels",
                "pin=worker@cores",
                "interval=5parsecs",
                "threads=(",
                "interval=999999999999m")) {
            try (AppJvm app = AppJvm.start(java, bad, dir)) {
                assertEquals(plain, drive(app), bad);
                List<String> said = app.stderr();
                assertEquals(1, said.size(), "one line for " + bad + ": " + said);
                String token = bad.substring(bad.indexOf('=') + 1);
                assertTrue(
                        said.get(0).startsWith("[perfpin] ")
                                && said.get(0).contains(token)
                                && said.get(0).contains("the agent is off"),
                        said.get(0));
            }
        }
    }

    /**
     * A bad option is one line on stderr on JDK 24 and later too, where a native library loaded without
     * {@code --enable-native-access} makes the JVM print a warning of its own: premain parses the options before it
     * loads the library. The only test JVM without that option, which every other is given.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void aBadOptionIsOneLineWhereNativeAccessIsNotEnabled(String java) throws Exception {
        try (TestJvm app = TestJvm.main(MainReached.class)
                .java(java)
                .agent(AppJvm.AGENT_JAR, "bogus=1")
                .classPath(Path.of(MainReached.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI())
                        .toString())
                .start()) {
            assertEquals(0, app.awaitExit(), app.describe("the application's exit"));
            List<String> said = app.stderr();
            assertEquals(1, said.size(), "one line: " + said);
            assertTrue(said.get(0).contains("'bogus=1'") && said.get(0).contains("the agent is off"), said.get(0));
        }
    }

    /**
     * java.util.regex took 41 s over each of these rules for this name, on the thread that starts, and more than
     * 120 s for both: RE2/J matches it at once, and the application runs as it does without the agent.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void aBacktrackingRuleLeavesThreadStartsAsFastAsEver(String java, @TempDir Path dir) throws Exception {
        String bomb = "(.*a){20}";
        String name = "a".repeat(30) + "b";
        List<String> plain = session(java, null, dir, name);
        try (AppJvm app = AppJvm.start(java, "threads=" + bomb + ";pin=" + bomb + "@0;events=sched", dir)) {
            assertEquals(plain, drive(app, name));
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());
        }
        try (AppJvm app = AppJvm.start(java, "threads=" + bomb + ";pin=" + bomb + "@0;events=sched", dir)) {
            app.await("ready");
            app.send("start " + "a".repeat(20) + " 16");
            assertEquals("0", Observed.cpusAllowed(app.pid(), app.touched("a".repeat(20))), "the rules apply");
            assertEquals(0, app.finish());
        }
    }

    /** A config file that is not a regular file would block start-up (a FIFO) or never end (/dev/zero). */
    @ParameterizedTest
    @MethodSource("javas")
    void aConfigThatIsNoRegularFileIsOneLineAndTheApplicationRunsUnchanged(String java, @TempDir Path dir)
            throws Exception {
        Path fifo = dir.resolve("perfpin.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        List<String> plain = session(java, null, dir);
        for (Path config : List.of(Path.of("/dev/zero"), fifo)) {
            String kind = config.equals(fifo) ? "a FIFO" : "a character device";
            try (AppJvm app = AppJvm.start(java, "config=" + config, dir)) {
                assertEquals(plain, drive(app), config.toString());
                assertEquals(
                        List.of("[perfpin] bad option 'config=" + config + "': " + config + " is " + kind
                                + ", not a regular file; the agent is off, the application runs without it"),
                        app.stderr());
            }
        }
    }

    /**
     * A URL with credentials is refused, on the command line or in a config file, and the refusal on the
     * application's stderr shows it masked: a log of that stderr never holds the password.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void aUrlWithCredentialsIsRefusedWithoutShowingThem(String java, @TempDir Path dir) throws Exception {
        List<String> plain = session(java, null, dir);
        Path config = Files.writeString(dir.resolve("perfpin.conf"), "otlp=http://user:s3cret@127.0.0.1:4318\n");
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r--r--"));
        for (String options : List.of("otlp=http://user:s3cret@127.0.0.1:4318", "config=" + config)) {
            try (AppJvm app = AppJvm.start(java, options, dir)) {
                assertEquals(plain, drive(app), options);
                assertEquals(
                        List.of("[perfpin] bad option 'otlp=http://***@127.0.0.1:4318': credentials in the URL"
                                + " would show in the agent's options; expected " + OtlpEndpoint.ALLOWED
                                + "; the agent is off,"
                                + " the application runs without it"),
                        app.stderr(),
                        options);
            }
        }
        try (AppJvm app = AppJvm.start(java, "otlp=user:s3cret@127.0.0.1:4318", dir)) {
            assertEquals(plain, drive(app));
            assertEquals(1, app.stderr().size(), app.stderr().toString());
            assertTrue(
                    app.stderr().get(0).startsWith("[perfpin] bad option 'otlp=***@127.0.0.1:4318': expected"),
                    app.stderr().get(0));
        }
    }

    /**
     * The issue's case: a root JVM given config=/etc/shadow printed its first line. A bad line of a file that is not
     * the JVM's user's own is said by its number only; a missing file in words, not as an exception.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void aConfigFileNotTheUsersOwnIsNeverQuoted(String java, @TempDir Path dir) throws Exception {
        List<String> plain = session(java, null, dir);
        Path missing = dir.resolve("missing.conf");
        try (AppJvm app = AppJvm.start(java, "config=" + missing, dir)) {
            assertEquals(plain, drive(app));
            assertEquals(
                    List.of("[perfpin] bad option 'config=" + missing + "': cannot open " + missing + ": no such"
                            + " file or directory; the agent is off, the application runs without it"),
                    app.stderr());
        }
        Assumptions.assumeTrue(EffectiveUser.uid() == 0, "only root can give a file to another user");
        Path theirs = Files.writeString(dir.resolve("theirs.conf"), "# theirs\npassword=hunter2\n");
        Files.setAttribute(theirs, "unix:uid", 4242);
        try (AppJvm app = AppJvm.start(java, "config=" + theirs, dir)) {
            assertEquals(plain, drive(app));
            assertEquals(
                    List.of("[perfpin] bad option 'config=" + theirs + "': line 2 of " + theirs + " is not a"
                            + " valid option (not shown: the file is not this user's own); the agent is off, the"
                            + " application runs without it"),
                    app.stderr());
        }
        Path shadow = Path.of("/etc/shadow");
        if (Files.isRegularFile(shadow)) {
            try (AppJvm app = AppJvm.start(java, "config=" + shadow, dir)) {
                assertEquals(plain, drive(app));
                assertEquals(1, app.stderr().size(), "one line");
                assertTrue(
                        app.stderr()
                                .get(0)
                                .matches("\\[perfpin\\] bad option 'config=/etc/shadow': line \\d+ of"
                                        + " /etc/shadow is not a valid option \\(not shown: .*"),
                        "its number, not its text");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("javas")
    void anOptionWithControlCharactersIsQuotedEscaped(String java, @TempDir Path dir) throws Exception {
        List<String> plain = session(java, null, dir);
        try (AppJvm app = AppJvm.start(java, "threads=a\tb\u001b[31m\u202e(", dir)) {
            assertEquals(plain, drive(app));
            List<String> said = app.stderr();
            assertEquals(1, said.size(), said.toString());
            assertTrue(said.get(0).startsWith("[perfpin] bad threads option 'threads=a\\tb\\x1b[31m"), said.get(0));
            assertTrue(said.get(0).chars().noneMatch(c -> c < 0x20 || c == 0x202e), said.get(0));
        }
    }

    private static List<String> session(String java, String options, Path dir) throws Exception {
        return session(java, options, dir, "worker-1");
    }

    private static List<String> session(String java, String options, Path dir, String thread) throws Exception {
        try (AppJvm app = AppJvm.start(java, options, dir)) {
            return drive(app, thread);
        }
    }

    /**
     * The stats file is truncated under the running agent, as {@code truncate -s 0} does: a write to its mapping
     * would fault. The agent stops publishing there and says so in one line; the application runs as it would
     * without the agent, and the recording still gets the thread's final record.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void aStatsFileTruncatedUnderTheAgentCostsTheApplicationNothing(String java, @TempDir Path dir) throws Exception {
        List<String> plain = session(java, null, dir);
        Path out = dir.resolve("run.jsonl");
        Path stats;
        try (AppJvm app = AppJvm.start(java, "threads=worker-.*;events=sched;interval=50ms;out=" + out, dir)) {
            stats = Observed.statsFile(dir, app.pid());
            app.await("ready");
            app.send("start worker-1 16");
            awaitLive(stats, app.touched("worker-1"), "page-faults", 16);
            try (FileChannel channel = FileChannel.open(stats, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (app.stderr().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            int exit = app.finish();
            List<String> lines = new java.util.ArrayList<>();
            for (String line : app.lines()) {
                lines.add(line.replaceAll(" \\d+$", " TID"));
            }
            lines.add("exit " + exit);
            assertEquals(plain, lines, "the application's output and exit code");
            List<String> said = app.stderr();
            assertEquals(1, said.size(), "one line, no stack trace: " + said);
            assertTrue(
                    said.get(0)
                            .startsWith("[perfpin] stopped publishing to the stats file " + stats
                                    + ": it was truncated to 0 bytes ("),
                    said.get(0));
        }
        assertEquals(1, Observed.records(out, "thread", "worker-1").size(), "the final record: " + out);
        assertEquals(0, Files.size(stats), "the agent never wrote it again");
    }

    private static List<String> drive(AppJvm app) throws Exception {
        return drive(app, "worker-1");
    }

    /** The same commands every time; returns the app's stdout, TIDs masked, and its exit code. */
    private static List<String> drive(AppJvm app, String thread) throws Exception {
        app.await("ready");
        app.send("start " + thread + " 16");
        app.touched(thread);
        int exit = app.finish();
        List<String> lines = new java.util.ArrayList<>();
        for (String line : app.lines()) {
            lines.add(line.replaceAll(" \\d+$", " TID"));
        }
        lines.add("exit " + exit);
        return lines;
    }

    static OptionalLong awaitLive(Path stats, int tid, String event, long atLeast) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        OptionalLong value = OptionalLong.empty();
        while (System.nanoTime() < deadline) {
            value = Observed.liveValue(stats, tid, event);
            if (value.isPresent() && value.getAsLong() >= atLeast) {
                return value;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("thread " + tid + " never showed " + event + " >= " + atLeast + " in " + stats
                + " (last " + value + ")");
    }

    static void assertWithin(long expected, long actual, double fraction, String what) {
        assertTrue(
                Math.abs(actual - expected) <= expected * fraction,
                what + ": expected " + expected + " within " + (fraction * 100) + "%, got " + actual);
    }
}
