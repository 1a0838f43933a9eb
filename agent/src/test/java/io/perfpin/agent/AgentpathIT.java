package io.perfpin.agent;

import static io.perfpin.agent.JavaagentIT.assertWithin;
import static io.perfpin.agent.JavaagentIT.awaitLive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.MainReached;
import io.perfpin.testkit.TestJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent by its native way in, {@code -agentpath:libperfpin-agent.so=OPTIONS}: the same Java agent, started as the
 * JVM starts, without the module option that -javaagent costs a JVM's start.
 */
class AgentpathIT {
    /** 64 MiB: one fault per page, and a few from starting a thread. */
    private static final int PAGES = 16384;

    /** The build leaves the library beside the jar where it had a C compiler; without one there is none to test. */
    @BeforeAll
    static void libraryBuilt() {
        assumeTrue(Files.isRegularFile(AppJvm.AGENT_LIBRARY), "no " + AppJvm.AGENT_LIBRARY + ": built without gcc");
    }

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    /** Name rules, a pin and the counts, as JavaagentIT checks them for -javaagent, and main counted whole. */
    @ParameterizedTest
    @MethodSource("javas")
    void countsAndPinsAsTheJavaagentDoes(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.startByAgentPath(
                java, "threads=main|toucher-.*;pin=toucher-1@0;events=sched;interval=50ms;out=" + out, dir)) {
            app.await("ready");
            app.send("start toucher-1 " + PAGES);
            int pinned = app.touched("toucher-1");
            assertEquals("0", Observed.cpusAllowed(app.pid(), pinned), "pinned, as /proc says");
            Path stats = Observed.statsFile(dir, app.pid());
            assertWithin(PAGES, awaitLive(stats, pinned, "page-faults", PAGES).getAsLong(), 0.03, "live page faults");
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());
        }
        List<String> toucher = Observed.records(out, "thread", "toucher-1");
        assertEquals(1, toucher.size(), "one final record");
        assertWithin(PAGES, (long) Observed.number(toucher.get(0), "page-faults"), 0.03, "final page faults");
        assertEquals("0", Observed.string(toucher.get(0), "cpus"));
        List<String> main = Observed.records(out, "thread", "main");
        assertEquals(1, main.size(), "main counted, as from premain");
        assertTrue(Observed.number(main.get(0), "page-faults") > 0, main.get(0));
    }

    /**
     * Why this way in: the JVM keeps the module graph that class-data sharing maps ready-made, which -javaagent's
     * module option disables, as HotSpot's own log says. On the JDK that runs the tests, without
     * --enable-native-access, a module option too.
     */
    @Test
    void theJvmKeepsItsArchivedModuleGraphAndMainIsCounted(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        Path log = dir.resolve("cds.log");
        try (TestJvm jvm = mainReached(dir, log)
                .agentPath(AppJvm.AGENT_LIBRARY, "out=" + out)
                .start()) {
            assertEquals(0, jvm.awaitExit(), jvm.describe("the trivial main"));
            assertTrue(jvm.output().contains("result main-reached"), jvm.describe("main() ran"));
            if (Runtime.version().feature() < 24) {
                // from JDK 24 the JVM warns of the JNI library, unless --enable-native-access, a module option too
                assertTrue(jvm.stderr().isEmpty(), jvm.describe("nothing said"));
            }
        }
        assertTrue(Files.readString(log).contains("full module graph: enabled"), Files.readString(log));
        assertEquals(1, Observed.records(out, "thread", "main").size(), "main's final record");

        Path withJavaagent = dir.resolve("javaagent-cds.log");
        try (TestJvm jvm =
                mainReached(dir, withJavaagent).agent(AppJvm.AGENT_JAR, "").start()) {
            assertEquals(0, jvm.awaitExit(), jvm.describe("the trivial main"));
        }
        assertTrue(Files.readString(withJavaagent).contains("full module graph: disabled"), "-javaagent's cost");
    }

    /** A library without its jar beside it: one line, and the application runs. */
    @Test
    void aLibraryWithoutItsJarSaysSoAndTheApplicationRuns(@TempDir Path dir) throws Exception {
        Path alone = Files.copy(AppJvm.AGENT_LIBRARY, dir.resolve("libperfpin-agent.so"));
        try (TestJvm jvm =
                mainReached(dir, dir.resolve("cds.log")).agentPath(alone, "").start()) {
            assertEquals(0, jvm.awaitExit(), jvm.describe("the trivial main"));
            assertTrue(jvm.output().contains("result main-reached"), jvm.describe("main() ran"));
            List<String> said = jvm.stderr();
            assertEquals(1, said.size(), jvm.describe("one line"));
            assertEquals(
                    "[perfpin] no " + dir.resolve("perfpin-agent.jar") + " to read beside libperfpin-agent.so: keep"
                            + " the two together, as the build leaves them; the application runs without the agent",
                    said.get(0));
        }
    }

    /** The library named twice: the first one's options stand, one line says so, and the agent starts once. */
    @Test
    void aLibraryNamedTwiceStartsTheAgentOnceWithTheFirstOptions(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("first.jsonl");
        Path second = dir.resolve("second.jsonl");
        try (TestJvm jvm = mainReached(dir, dir.resolve("cds.log"))
                // the JVM options come before the agent's on the command line
                .jvmOptions("-agentpath:" + AppJvm.AGENT_LIBRARY.toAbsolutePath() + "=out=" + first)
                .agentPath(AppJvm.AGENT_LIBRARY, "out=" + second)
                .start()) {
            assertEquals(0, jvm.awaitExit(), jvm.describe("the trivial main"));
            assertEquals(
                    List.of("[perfpin] -agentpath named libperfpin-agent.so twice: the first one's options stand, and"
                            + " the agent starts once"),
                    jvm.stderr().stream()
                            .filter(line -> line.startsWith("[perfpin]"))
                            .toList());
        }
        assertEquals(1, Observed.records(first, "thread", "main").size(), "main's final record");
        assertTrue(Files.notExists(second), "no second agent");
    }

    /** The trivial main on this JDK, with only its own classes, and HotSpot's CDS log in {@code log}. */
    private static TestJvm.Builder mainReached(Path dir, Path log) throws Exception {
        Path classes = Paths.get(MainReached.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        return TestJvm.main(MainReached.class)
                .classPath(classes.toString())
                .property("perfpin.dir", dir.toString())
                .jvmOptions("-Xlog:cds=info:file=" + log);
    }
}
