package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.report.JsonReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live view's windows are the agent's: a busy and a parked thread, in a JVM whose agent samples every 500 ms,
 * watched by four {@code top}s at once, at 100 ms, 200 ms, 500 ms and 1 s, each streaming JSON lines until the
 * agent detaches. Every window's {@code cpu-utilisation} is at most 1, each thread's windows add up to its final
 * totals exactly, and the last frame, which the detach ends, is not empty. A fifth, in a table, labels the threads
 * that still ran {@code running at detach}.
 */
class LiveWindowsTest {
    private static final List<String> INTERVALS = List.of("100ms", "200ms", "500ms", "1s");
    /**
     * task-clock runs on the scheduler's clock, the windows on CLOCK_MONOTONIC: two clocks of one machine, which
     * may differ by parts per million; a window is a read's length wider than the counts, never narrower.
     */
    private static final double CLOCKS = 1e-4;

    /** About half the agent's interval: the 100 ms viewer shows a sample within about 100 ms of it. */
    private static final Pattern TIME = Pattern.compile("^\\{\"type\":\"sample\",\"time\":(\\d+),");

    private static final Duration AFTER_A_SAMPLE = Duration.ofMillis(200);
    /** A window in which a busy thread, sharing two CPUs with the build, may not have run at all. */
    private static final Duration SHORT_WINDOW = Duration.ofMillis(50);

    @TempDir
    Path dir;

    @Test
    void everyViewerShowsTheAgentsWindowsWhoseCountsAddUpToTheTotals() throws Exception {
        try (ChildJvm service = ChildJvm.withAgent(
                "threads=spin-.*|parked-.*;events=sched;interval=500ms", "io.perfpin.apps.Service", "0", "120", "1")) {
            service.await(Pattern.compile("ready"));
            service.send("spin spin-1");
            service.await(Pattern.compile("thread spin-1 tid \\d+"));
            String pid = Long.toString(service.pid());
            List<ChildJvm> viewers = new ArrayList<>();
            try {
                for (String interval : INTERVALS) {
                    viewers.add(ChildJvm.start(
                            Perfpin.class.getName(),
                            "top",
                            pid,
                            "--interval",
                            interval,
                            "--format",
                            "json",
                            "--output",
                            dir.resolve(interval + ".jsonl").toString()));
                }
                viewers.add(ChildJvm.start(
                        Perfpin.class.getName(),
                        "top",
                        pid,
                        "--output",
                        dir.resolve("table.txt").toString()));
                // Each viewer has shown a few windows of its own before the agent goes.
                for (String interval : INTERVALS) {
                    awaitLines(dir.resolve(interval + ".jsonl"), 6);
                }
                awaitLines(dir.resolve("table.txt"), 3);
                // The detach comes about half an agent interval after a sample, so that the window it ends is not
                // a few milliseconds long, in which a busy thread may well not have run on a loaded machine.
                awaitNextFrame(dir.resolve("100ms.jsonl"));
                Thread.sleep(AFTER_A_SAMPLE.toMillis());
                assertEquals(0, CliRun.capture(() -> Perfpin.run("detach", pid)).code);
                for (ChildJvm viewer : viewers) {
                    assertEquals(0, viewer.exitWithin(Duration.ofSeconds(30)), String.join("\n", viewer.rest()));
                }
            } finally {
                for (ChildJvm viewer : viewers) {
                    viewer.kill();
                }
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
        for (String interval : INTERVALS) {
            assertWindows(interval, dir.resolve(interval + ".jsonl"));
        }
        String table = Files.readString(dir.resolve("table.txt"));
        String totals = table.substring(table.indexOf("perfpin top: the agent detached. Totals"));
        assertTrue(
                Pattern.compile("(?m)^spin-1 .* running at detach ")
                        .matcher(totals)
                        .find(),
                "in a table, threads that still ran are labelled so: " + totals);
    }

    private static void assertWindows(String interval, Path file) throws Exception {
        Map<String, Map<String, Long>> sums = new HashMap<>();
        Map<String, Map<String, Long>> totals = new HashMap<>();
        Map<Long, List<Map<?, ?>>> frames = new LinkedHashMap<>();
        int windows = 0;
        for (String line : Files.readAllLines(file)) {
            Map<?, ?> record = (Map<?, ?>) JsonReader.parse(line);
            String name = (String) record.get("name");
            Map<String, Long> counters = counters(record);
            if (record.get("type").equals("sample")) {
                windows++;
                frames.computeIfAbsent((Long) record.get("time"), t -> new ArrayList<>())
                        .add(record);
                counters.forEach((event, value) ->
                        sums.computeIfAbsent(name, n -> new HashMap<>()).merge(event, value, Long::sum));
                Number utilisation = (Number) ((Map<?, ?>) record.get("metrics")).get("cpu-utilisation");
                assertTrue(utilisation != null && utilisation.doubleValue() <= 1 + CLOCKS, interval + ": " + line);
            } else {
                assertEquals("thread", record.get("type"), line);
                totals.put(name, counters);
                assertEquals("running", record.get("state"), "both still ran when the agent detached: " + line);
            }
        }
        assertTrue(windows >= 6, interval + ": " + windows + " windows");
        assertEquals(totals.keySet(), sums.keySet(), interval);
        for (String name : totals.keySet()) {
            assertEquals(totals.get(name), sums.get(name), interval + ": " + name + "'s windows add up to its totals");
        }
        // The closing frame is the window the detach ended, measured by the agent, never an empty one of the
        // viewer's own; it holds the busy thread's time unless it is so short that the thread may not have run in
        // it on a loaded two-CPU machine (the detach comes about 200 ms after a sample, so it seldom is).
        List<Map<?, ?>> last = new ArrayList<>(frames.values()).get(frames.size() - 1);
        long closingNanos = last.stream()
                .mapToLong(r -> ((Number) r.get("wallNanos")).longValue())
                .max()
                .orElseThrow();
        assertTrue(closingNanos > 0, interval + ": the closing frame is a window of the agent's: " + last);
        assertTrue(
                closingNanos < SHORT_WINDOW.toNanos()
                        || !last.stream()
                                .allMatch(r -> counters(r).values().stream().allMatch(v -> v == 0)),
                interval + ": the closing frame holds what the detach ended: " + last);
        assertTrue(totals.get("spin-1").get("task-clock") > 0, interval);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Long> counters(Map<?, ?> record) {
        Map<String, Long> counters = new HashMap<>();
        ((Map<String, Object>) record.get("counters"))
                .forEach((event, value) -> counters.put(event, ((Number) value).longValue()));
        return counters;
    }

    /** Waits until a viewer's {@code file} shows a frame it did not show yet, for at most 30 s. */
    private static void awaitNextFrame(Path file) throws Exception {
        int frames = frames(file);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (frames(file) == frames) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(file + " shows no new frame after 30 s");
            }
            Thread.sleep(10);
        }
    }

    /** How many frames a viewer's file shows: its samples' distinct times (a line being written may be cut). */
    private static int frames(Path file) throws Exception {
        return (int) Files.readAllLines(file).stream()
                .map(TIME::matcher)
                .filter(Matcher::find)
                .map(m -> m.group(1))
                .distinct()
                .count();
    }

    /** Waits until {@code file} has {@code lines} lines, for at most 30 s. */
    private static void awaitLines(Path file, int lines) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!Files.exists(file) || Files.readAllLines(file).size() < lines) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(file + " has fewer than " + lines + " lines after 30 s");
            }
            Thread.sleep(50);
        }
    }
}
