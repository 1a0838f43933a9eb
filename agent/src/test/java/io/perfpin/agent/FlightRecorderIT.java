package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import jdk.jfr.Timespan;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent's JFR events, from a real JVM recorded with {@code -XX:StartFlightRecording}, read back with
 * {@link RecordingFile} and with the JDK's own {@code jfr print}.
 */
class FlightRecorderIT {
    /** The sched preset's events, by their JFR field: each thread's events add up to its final record. */
    private static final Map<String, String> FIELDS = Map.of(
            "task-clock",
            "taskClock",
            "context-switches",
            "contextSwitches",
            "cpu-migrations",
            "cpuMigrations",
            "page-faults",
            "pageFaults",
            "minor-faults",
            "minorFaults",
            "major-faults",
            "majorFaults");

    private static final int PAGES = 256;
    private static final int ROUNDS = 10;
    private static final String METHOD = "io.perfpin.agent.apps.CountedWork.touch(int)";

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void threadCountersAddUpToTheFinalRecordAndNameTheThread(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.jsonl");
        Path jfr = dir.resolve("run.jfr");
        int tid;
        try (AppJvm app = AppJvm.start(
                java,
                "threads=paced-.*;events=sched;interval=50ms;out=" + out,
                dir,
                "-XX:StartFlightRecording=filename=" + jfr)) {
            app.await("ready");
            app.send("paced paced-1 " + PAGES + " " + ROUNDS);
            tid = Integer.parseInt(app.await("paced paced-1 ").split(" ")[2]);
            app.send("method 20 " + PAGES);
            app.await("called 20");
            // Both summaries must be written by a tick, not by the final pass, which races JFR's own shutdown hook.
            String last = awaitRecord(out, "thread", "paced-1", r -> true);
            // the summary after the 20th call: one written while the calls went on would leave the last 8 to the race
            awaitRecord(
                    out,
                    "method-sample",
                    METHOD.replace("(", "\\(").replace(")", "\\)"),
                    r -> Observed.number(r, "calls") == 20);
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());

            List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
            List<RecordedEvent> paced = events.stream()
                    .filter(e -> e.getEventType().getName().equals("perfpin.ThreadCounters"))
                    .filter(e -> e.getInt("tid") == tid)
                    .collect(Collectors.toList());
            assertTrue(paced.size() >= 3, "an event per tick while it ran " + ROUNDS * 30 + " ms: " + paced.size());
            for (Map.Entry<String, String> field : FIELDS.entrySet()) {
                long sum = paced.stream()
                        .mapToLong(e -> e.getLong(field.getValue()))
                        .sum();
                assertEquals(
                        (long) Observed.number(last, field.getKey()),
                        sum,
                        field.getKey() + " summed over " + paced.size() + " events, against the final record " + last);
            }
            long javaId = (long) Observed.number(last, "javaId");
            for (int i = 0; i < paced.size() - 1; i++) {
                RecordedEvent e = paced.get(i);
                assertEquals("paced-1", e.getString("threadName"));
                assertFalse(e.getBoolean("last"));
                assertEquals(1.0, e.getDouble("pageFaultsCoverage"), "software events are never multiplexed");
                // JFR resolves the Thread field as the event is committed, and writes N/A for a thread that has
                // ended: the thread may end between the last tick that found it running and that tick's events.
                // Every event before that tick's was committed while it surely ran.
                if (i < paced.size() - 2) {
                    RecordedThread thread = e.getThread("thread");
                    assertNotNull(thread, "the thread field of an event while it ran: " + e);
                    assertEquals(javaId, thread.getJavaThreadId());
                    assertEquals("paced-1", thread.getJavaName());
                }
            }
            assertTrue(paced.get(paced.size() - 1).getBoolean("last"), "its last event says so");

            RecordedEvent method = events.stream()
                    .filter(e -> e.getEventType().getName().equals("perfpin.MethodCounters"))
                    .filter(e -> e.getString("method").equals(METHOD))
                    .reduce((a, b) -> b)
                    .orElseThrow();
            assertEquals(20, method.getLong("calls"));
            JavaagentIT.assertWithin(20 * PAGES, method.getLong("pageFaultsTotal"), 0.03, "page faults of 20 calls");
            assertEquals(
                    Timespan.NANOSECONDS,
                    method.getEventType()
                            .getField("taskClockP50")
                            .getAnnotation(Timespan.class)
                            .value(),
                    "task-clock carries its unit");
        }
        String printed = jfrPrint(java, jfr);
        assertTrue(
                printed.contains("perfpin.ThreadCounters {")
                        && printed.contains("threadName = \"paced-1\"")
                        && printed.contains("pageFaults = "),
                printed.length() > 2000 ? printed.substring(0, 2000) : printed);
    }

    /** The last {@code type} record of {@code name}, once there is one and it passes {@code complete}. */
    private static String awaitRecord(Path out, String type, String name, Predicate<String> complete) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            List<String> records = Observed.records(out, type, name);
            if (!records.isEmpty() && complete.test(records.get(records.size() - 1))) {
                return records.get(records.size() - 1);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no " + type + " record of " + name + " in " + out + " within 30 s");
    }

    /** {@code jfr print --events perfpin.ThreadCounters} of the JDK that recorded it. */
    private static String jfrPrint(String java, Path jfr) throws IOException, InterruptedException {
        Path tool = Paths.get(java).resolveSibling("jfr");
        Process print = new ProcessBuilder(
                        tool.toString(), "print", "--events", "perfpin.ThreadCounters", jfr.toString())
                .redirectErrorStream(true)
                .start();
        String text = new String(print.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(print.waitFor(60, TimeUnit.SECONDS), "jfr print ended");
        assertEquals(0, print.exitValue(), text);
        return text;
    }
}
