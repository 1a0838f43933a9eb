package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.jvm.AgentJar;
import io.perfpin.stats.StatsLayout;
import io.perfpin.testkit.PerfEventDescriptors;
import io.perfpin.testkit.SlowAgentStart;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * detach asks the agent itself, through the JVM's attach channel, whether it runs and whether it stopped: it works
 * whatever became of the stats file, and a JVM without an agent is left as it was.
 */
@Timeout(120)
class DetachCommandTest {
    @Test
    void detachesWhenTheStatsFileWasRemoved() throws Exception {
        attachDamageAndDetach(Files::delete);
    }

    @Test
    void detachesWhenTheStatsFileWasTruncatedToNothing() throws Exception {
        attachDamageAndDetach(stats -> {
            try (FileChannel file = FileChannel.open(stats, StandardOpenOption.WRITE)) {
                file.truncate(0);
            }
        });
    }

    @Test
    void detachesWhenTheStatsFileWasOverwrittenWithGarbage() throws Exception {
        attachDamageAndDetach(stats -> {
            byte[] garbage = new byte[(int) Files.size(stats)];
            new Random(19).nextBytes(garbage);
            Files.write(stats, garbage, StandardOpenOption.WRITE);
        });
    }

    /** An agent started with stats=off never makes one. */
    @Test
    void detachesAnAgentThatNeverMadeAStatsFile() throws Exception {
        try (ChildJvm service = ChildJvm.withAgent(
                "stats=off;threads=worker-.*;pin=worker-0@1;interval=100ms", "io.perfpin.apps.Service", "2", "120")) {
            int tid = workerTid(service);
            service.await(Pattern.compile("ready"));
            assertFalse(Files.exists(PerfpinDirectory.statsFile(service.pid())), "no stats file");
            assertEquals("1", ProcFiles.cpusAllowed(service.pid(), tid), "pinned by the agent");
            assertTrue(PerfEventDescriptors.of(service.pid()) > 0, "and counted");

            assertDetachedAndLeftAsBefore(service, allCpus(service));
            assertOnlyPerfpinLines(service.endAndReadRest());
        }
    }

    /**
     * An agent that still starts beside main() (held back 1.5 s after its premain returned) says so, and detach waits
     * for it to run, then detaches it: not "no agent runs".
     */
    @Test
    void detachWaitsForAnAgentThatIsStillStarting(@TempDir Path dir) throws Exception {
        try (ChildJvm service = ChildJvm.startWith(
                List.of(
                        SlowAgentStart.option(dir, 1_500),
                        "-javaagent:" + AgentJar.forThisUser() + "=threads=main;stats=off"),
                "io.perfpin.apps.Service",
                "1",
                "120")) {
            service.await(Pattern.compile("ready"));
            String cpus = allCpus(service);
            assertDetachedAndLeftAsBefore(service, cpus);
            assertOnlyPerfpinLines(service.endAndReadRest());
        }
    }

    /**
     * No agent, and a damaged stats file of its pid that no agent made: exit 6, and the JVM did not even get a
     * signal: no Java agent was loaded, and no attach listener started.
     */
    @Test
    void aJvmWithoutAnAgentIsExit6AndLeftAsItWas() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            long pid = service.pid();
            Path stats = PerfpinDirectory.statsFile(pid);
            try {
                StatsFiles.writeValid(stats, pid);
                StatsFiles.putInt(stats, StatsLayout.EVENT_CAPACITY_OFFSET, 0);
                CliRun run = CliRun.capture(() -> Perfpin.run("detach", Long.toString(pid)));
                assertEquals(ExitCode.NO_AGENT, run.code, run.err);
                assertEquals(
                        "perfpin detach: process " + pid + " runs no perfpin agent: start it with"
                                + " -javaagent:<path to perfpin-agent.jar>, or perfpin attach " + pid + "\n",
                        run.err);
                assertFalse(ProcFiles.maps(pid, "libinstrument.so"), "no Java agent was loaded into it");
                assertFalse(
                        ProcFiles.threadNames(pid).contains("Attach Listener"),
                        "not even its attach" + " listener started: " + ProcFiles.threadNames(pid));
                assertEquals(List.of(), service.endAndReadRest(), "nothing said on its output, no thread dump");
            } finally {
                Files.deleteIfExists(stats);
            }
        }
    }

    /**
     * attach pins worker-0 and leaves the agent running; {@code damage} is done to its stats file; detach then
     * stops it all the same: exit 0, no perf_event descriptor, every thread on the CPUs it had.
     */
    private static void attachDamageAndDetach(Damage damage) throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            int tid = workerTid(service);
            service.await(Pattern.compile("ready"));
            String cpus = allCpus(service);
            String pid = Long.toString(service.pid());
            Path stats = PerfpinDirectory.statsFile(service.pid());
            try {
                CliRun attach = CliRun.capture(() -> Perfpin.run(
                        "attach",
                        pid,
                        "--threads",
                        "worker-.*",
                        "--pin",
                        "worker-0@1",
                        "--interval",
                        "100ms",
                        "--duration",
                        "300ms"));
                assertEquals(ExitCode.OK, attach.code, attach.out + attach.err);
                assertEquals("1", ProcFiles.cpusAllowed(service.pid(), tid), "pinned by the agent");
                assertTrue(PerfEventDescriptors.of(service.pid()) > 0, "and counted");
                damage.to(stats);

                assertDetachedAndLeftAsBefore(service, cpus);
            } finally {
                Files.deleteIfExists(stats);
            }
            assertOnlyPerfpinLines(service.endAndReadRest());
        }
    }

    private interface Damage {
        void to(Path stats) throws IOException;
    }

    private static void assertDetachedAndLeftAsBefore(ChildJvm service, String cpus) {
        long pid = service.pid();
        CliRun detach = CliRun.capture(() -> Perfpin.run("detach", Long.toString(pid)));
        assertEquals(ExitCode.OK, detach.code, detach.err);
        assertEquals("perfpin: detached from " + pid + "\n", detach.out);
        assertNothingOfPerfpinsIn(pid, cpus);

        CliRun again = CliRun.capture(() -> Perfpin.run("detach", Long.toString(pid)));
        assertEquals(ExitCode.NO_AGENT, again.code, "the agent says it is gone: " + again.err);
    }

    /** No perf_event descriptor in the JVM, and each of its threads on {@code cpus}, the CPUs it had before. */
    static void assertNothingOfPerfpinsIn(long pid, String cpus) {
        assertEquals(0, PerfEventDescriptors.of(pid), "no perf_event descriptor left");
        Map<Integer, String> each = ProcFiles.cpusAllowedOfEachThread(pid);
        assertTrue(each.values().stream().allMatch(cpus::equals), "every thread back on " + cpus + ": " + each);
    }

    /** The CPUs the JVM's main thread may use, which every thread has until something pins it. */
    private static String allCpus(ChildJvm service) {
        return ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
    }

    private static int workerTid(ChildJvm service) throws IOException {
        return service.tid("worker-0");
    }

    /** The application's own output has nothing of perfpin's but its [perfpin] lines: no stack trace. */
    static void assertOnlyPerfpinLines(List<String> rest) {
        assertTrue(rest.stream().allMatch(l -> l.startsWith("[perfpin] ")), "only [perfpin] lines: " + rest);
    }
}
