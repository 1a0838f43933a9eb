package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.ThreadCounters;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The agent in the JVM of a user without privilege, at {@code perf_event_paranoid} 2, where the kernel refuses the
 * {@code sched} events: their values come from /proc, marked so in attach's live view, in the stats file and in
 * the recording, and each lies between what /proc counted over a window inside the agent's counting and over one
 * around it. The user attaches to its own JVM and detaches, as such a user would.
 */
class AgentUnprivilegedTest {
    @Test
    void theAgentCountsTheSchedEventsTheKernelRefusesFromProcMarkedSo() throws Exception {
        try (UnprivilegedService jvm = UnprivilegedService.start(2)) {
            Path recording = jvm.dir.resolve("recording.jsonl");
            Map<String, long[]> around = jvm.procCounts();
            String shown = String.join(
                    "\n",
                    jvm.perfpin(
                            "attach",
                            jvm.pid(),
                            "--threads",
                            "worker-.*",
                            "--record",
                            recording.toString(),
                            "--interval",
                            "100ms",
                            "--duration",
                            "1s"));
            // the note below the table is folded to its width: read as one line
            assertTrue(
                    shown.contains("task-clock (proc)")
                            && shown.contains("context-switches (proc)")
                            && shown.replace("\n    ", " ").contains("(proc): " + ThreadCounters.PROC_EXPLAINED),
                    shown);
            assertTrue(
                    shown.contains("agent: counting task-clock, context-switches, ") && shown.contains(" from /proc/"),
                    shown);
            assertTrue(
                    shown.contains("worker-0") && shown.contains("worker-1"),
                    "both counted before attach ended:\n" + shown);
            // Both workers are counted now: what /proc counts from here until detach, the agent counted.
            Map<String, long[]> inside = jvm.procCounts();
            Thread.sleep(300);
            inside = jvm.procCountsSince(inside);
            List<String> detached = jvm.perfpin("detach", jvm.pid());
            around = jvm.procCountsSince(around);
            assertFalse(String.join("\n", detached).contains("Exception"), String.join("\n", detached));

            List<String> recorded = Files.readAllLines(recording);
            assertEquals(2, UnprivilegedService.checkRecords(recorded, inside, around), String.join("\n", recorded));
            List<String> rest = jvm.service.endAndReadRest();
            assertTrue(
                    rest.stream().noneMatch(l -> l.startsWith("[perfpin]")), "nothing on the application's: " + rest);
        }
    }

    /**
     * A thread's /proc files go with it, so it reads them itself as it ends: it keeps what /proc counted up to its
     * end, though the sampler (every 10 s here) never read it while it ran.
     */
    @Test
    void aThreadThatEndsKeepsWhatProcCountedUpToItsEnd() throws Exception {
        try (UnprivilegedService jvm = UnprivilegedService.start(1)) {
            Path recording = jvm.dir.resolve("recording.jsonl");
            jvm.perfpin(
                    "attach",
                    jvm.pid(),
                    "--threads",
                    "worker-.*",
                    "--record",
                    recording.toString(),
                    "--interval",
                    "10s",
                    "--duration",
                    "200ms");
            Map<String, long[]> counted = jvm.procCounts();
            Thread.sleep(300);
            long[] before = jvm.procCountsSince(counted).get("worker-0");
            jvm.service.send("end worker-0");
            jvm.service.await(Pattern.compile("ended worker-0"));
            awaitGone(jvm.service.pid(), jvm.tids.get("worker-0"));
            jvm.perfpin("detach", jvm.pid());

            List<String> records = Files.readAllLines(recording).stream()
                    .filter(l -> l.startsWith("{\"type\":\"thread\""))
                    .toList();
            assertEquals(1, records.size(), String.join("\n", Files.readAllLines(recording)));
            ThreadReport r = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(records.get(0)))
                    .report();
            assertTrue(before[0] > 0, "the worker spins a while every millisecond");
            for (int e = 0; e < UnprivilegedService.FROM_PROC.size(); e++) {
                String event = UnprivilegedService.FROM_PROC.get(e);
                assertEquals(ThreadCounters.PROC, r.sources().get(event), records.get(0));
                assertTrue(
                        r.counters().get(event) >= before[e],
                        event + ": " + r.counters().get(event) + ", though /proc counted " + before[e]
                                + " in a window before the thread ended");
            }
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
}
