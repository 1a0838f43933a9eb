package io.perfpin.cli;

import io.perfpin.counter.ThreadCounters;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The agent in the JVM of a user without privilege, at {@code perf_event_paranoid} 2, where the kernel refuses the
 * {@code sched} events: their values come from /proc, marked so in attach's live view, in the stats file and in
 * the recording, and each lies between what /proc counted over a window inside the agent's counting and over one
 * around it. The user attaches to its own JVM and detaches, as such a user would.
 */
class AgentUnprivilegedTest {
    private static final Pattern WORKER = Pattern.compile("thread (worker-\\d+) tid (\\d+)");
    private static final List<String> FROM_PROC = List.of("task-clock", "context-switches", "page-faults");

    @Test
    void theAgentCountsTheSchedEventsTheKernelRefusesFromProcMarkedSo() throws Exception {
        assumeTrue(ProcCounts.paranoid() >= 2, "perf_event_paranoid is below 2 here: the kernel lets any user count");
        Adversary user = Adversary.create();
        Path copy = Files.createTempDirectory("perfpin-classpath");
        Path dir = user.newDirectory();
        try (ChildJvm service = ChildJvm.startUnder(user.launcher(), Adversary.readableCopy(
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")), copy), List.of(),
                "io.perfpin.apps.Service", "2", "120")) {
            String classPath = Adversary.readableCopy(System.getProperty("java.class.path"),
                    Files.createDirectories(copy.resolve("cli")));
            Map<String, Integer> tids = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                Matcher worker = service.await(WORKER);
                tids.put(worker.group(1), Integer.parseInt(worker.group(2)));
            }
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            Path recording = dir.resolve("recording.jsonl");

            Map<String, long[]> around = new HashMap<>();
            tids.forEach((name, tid) -> around.put(name, ProcCounts.of(service.pid(), tid)));
            List<String> attached = perfpin(user, classPath, "attach", pid, "--threads", "worker-.*", "--record",
                    recording.toString(), "--interval", "100ms", "--duration", "1s");
            String shown = String.join("\n", attached);
            assertTrue(shown.contains("task-clock (proc)") && shown.contains("context-switches (proc)")
                    && shown.contains("(proc): " + ThreadCounters.PROC_EXPLAINED), shown);
            assertTrue(shown.contains("agent: counting task-clock, context-switches, ") && shown.contains(" from /proc/"),
                    shown);
            assertTrue(shown.contains("worker-0") && shown.contains("worker-1"), "both counted before attach ended:\n"
                    + shown);
            // Both workers are counted now: what /proc counts from here until detach, the agent counted.
            Map<String, long[]> inside = new HashMap<>();
            tids.forEach((name, tid) -> inside.put(name, ProcCounts.of(service.pid(), tid)));
            Thread.sleep(300);
            tids.forEach((name, tid) -> inside.put(name, ProcCounts.minus(ProcCounts.of(service.pid(), tid),
                    inside.get(name))));
            List<String> detached = perfpin(user, classPath, "detach", pid);
            tids.forEach((name, tid) -> around.put(name, ProcCounts.minus(ProcCounts.of(service.pid(), tid),
                    around.get(name))));
            assertFalse(String.join("\n", detached).contains("Exception"), String.join("\n", detached));

            int checked = 0;
            for (String line : Files.readAllLines(recording)) {
                if (!line.startsWith("{\"type\":\"thread\"")) {
                    continue;
                }
                ThreadReport r = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(line)).report();
                for (int e = 0; e < FROM_PROC.size(); e++) {
                    String event = FROM_PROC.get(e);
                    assertEquals(ThreadCounters.PROC, r.sources().get(event), line);
                    long value = r.counters().get(event);
                    assertTrue(inside.get(r.name())[e] <= value && value <= around.get(r.name())[e], event + " of "
                            + r.name() + ": " + value + " is not between " + inside.get(r.name())[e] + " and "
                            + around.get(r.name())[e]);
                }
                assertTrue(inside.get(r.name())[1] > 0, "the worker naps each millisecond, so it is switched out");
                assertTrue(r.unsupported().isEmpty() || r.unsupported().keySet().equals(Set.of("cpu-migrations"))
                        && r.unsupported().get("cpu-migrations").contains("se.nr_migrations"), line);
                checked++;
            }
            assertEquals(2, checked, String.join("\n", Files.readAllLines(recording)));
            List<String> rest = service.endAndReadRest();
            assertTrue(rest.stream().noneMatch(l -> l.startsWith("[perfpin]")), "nothing on the application's: " + rest);
        } finally {
            Adversary.removeAll(copy);
            Adversary.removeAll(dir);
        }
    }

    /**
     * A thread's /proc files go with it, so it reads them itself as it ends: it keeps what /proc counted up to its
     * end, though the sampler (every 10 s here) never read it while it ran.
     */
    @Test
    void aThreadThatEndsKeepsWhatProcCountedUpToItsEnd() throws Exception {
        assumeTrue(ProcCounts.paranoid() >= 2, "perf_event_paranoid is below 2 here: the kernel lets any user count");
        Adversary user = Adversary.create();
        Path copy = Files.createTempDirectory("perfpin-classpath");
        Path dir = user.newDirectory();
        try (ChildJvm service = ChildJvm.startUnder(user.launcher(), Adversary.readableCopy(
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")), copy), List.of(),
                "io.perfpin.apps.Service", "1", "120")) {
            String classPath = Adversary.readableCopy(System.getProperty("java.class.path"),
                    Files.createDirectories(copy.resolve("cli")));
            int tid = Integer.parseInt(service.await(WORKER).group(2));
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            Path recording = dir.resolve("recording.jsonl");
            perfpin(user, classPath, "attach", pid, "--threads", "worker-.*", "--record", recording.toString(),
                    "--interval", "10s", "--duration", "200ms");
            long[] counted = ProcCounts.of(service.pid(), tid);
            Thread.sleep(300);
            counted = ProcCounts.minus(ProcCounts.of(service.pid(), tid), counted);
            service.send("end worker-0");
            service.await(Pattern.compile("ended worker-0"));
            awaitGone(service.pid(), tid);
            perfpin(user, classPath, "detach", pid);

            List<String> records = Files.readAllLines(recording).stream()
                    .filter(l -> l.startsWith("{\"type\":\"thread\"")).toList();
            assertEquals(1, records.size(), String.join("\n", Files.readAllLines(recording)));
            ThreadReport r = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(records.get(0))).report();
            assertTrue(counted[0] > 0, "the worker spins a while every millisecond");
            for (int e = 0; e < FROM_PROC.size(); e++) {
                String event = FROM_PROC.get(e);
                assertEquals(ThreadCounters.PROC, r.sources().get(event), records.get(0));
                assertTrue(r.counters().get(event) >= counted[e], event + ": " + r.counters().get(event)
                        + ", though /proc counted " + counted[e] + " in a window before the thread ended");
            }
        } finally {
            Adversary.removeAll(copy);
            Adversary.removeAll(dir);
        }
    }

    private static void awaitGone(long pid, int tid) throws InterruptedException {
        Path task = Path.of("/proc/" + pid + "/task/" + tid);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (Files.exists(task)) {
            assertTrue(System.nanoTime() < deadline, task + " still there 30 s after the thread's end");
            Thread.sleep(10);
        }
    }

    /** Runs the CLI as {@code user}, with a deadline; returns what it printed, once it exited 0. */
    private static List<String> perfpin(Adversary user, String classPath, String... args) throws Exception {
        try (ChildJvm cli = ChildJvm.startUnder(user.launcher(), classPath, List.of(), "io.perfpin.cli.Perfpin",
                args)) {
            int code = cli.exitWithin(java.time.Duration.ofSeconds(60));
            List<String> said = cli.rest();
            assertEquals(0, code, String.join(" ", args) + ":\n" + String.join("\n", said));
            return said;
        }
    }
}
