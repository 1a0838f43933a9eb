package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.event.DerivedMetric;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Timelines of real recordings (README beside the fixtures): the agent's cumulative samples and stat's windows, and
 * a group's, the sum of its threads'.
 */
class TimelineTest {
    @Test
    void agentSamplesBecomeWindowsWhoseCountsAddUpToTheFinalRecord() throws Exception {
        List<ThreadRecord> ping = records("agent-pingpong.jsonl", "ping");
        Timeline timeline = timeline(ping);
        assertEquals(ping.size(), timeline.endMillis().length, "a window per record");
        ThreadRecord last = ping.get(ping.size() - 1);
        assertTrue(last.isFinal());
        for (String event : last.report().counters().keySet()) {
            assertEquals(last.report().counters().get(event), total(timeline, event), 0.5, event);
        }
        assertEquals(last.report().wallNanos(), sum(timeline.windowNanos()), 1, "the windows cover its time");
        ThreadRecord second = ping.get(1);
        double expected = (double) (second.report().counters().get("task-clock")
                        - ping.get(0).report().counters().get("task-clock"))
                / (second.report().wallNanos() - ping.get(0).report().wallNanos());
        assertEquals(expected, series(timeline, "task-clock").values()[1], 1e-12, "the share of the second window");
        assertEquals(DerivedMetric.Unit.SHARE, series(timeline, "task-clock").unit());
        assertEquals(
                DerivedMetric.Unit.PER_SECOND,
                series(timeline, "context-switches").unit());
        assertTrue(
                timeline.series().stream().noneMatch(s -> s.name().equals("cs-per-sec")),
                "a rate metric is the event's rate, not given twice");
    }

    @Test
    void statIntervalSamplesAreWindowsAndItsTotalsEndThem() throws Exception {
        List<ThreadRecord> busy = records("stat-interval.jsonl", "busy-1");
        Timeline timeline = timeline(busy);
        ThreadRecord total = busy.get(busy.size() - 1);
        for (int i = 0; i < busy.size() - 1; i++) {
            ThreadReport window = busy.get(i).report();
            assertEquals(
                    (double) window.counters().get("task-clock") / window.wallNanos(),
                    series(timeline, "task-clock").values()[i],
                    1e-12,
                    "window " + i + " as stat counted it");
        }
        assertEquals(total.report().counters().get("task-clock"), total(timeline, "task-clock"), 0.5);
        assertEquals(busy.size() - 1, timeline.endMillis().length, "the totals add no window");
    }

    @Test
    void beyondItsPointsEveryOtherIsDroppedAndNoCountIsLost() throws Exception {
        List<ThreadRecord> windows = records("stat-interval.jsonl", "busy-1");
        windows = windows.subList(0, windows.size() - 1);
        Timeline timeline = new Timeline();
        List<ThreadRecord> fed = new ArrayList<>();
        for (int round = 0; fed.size() <= Timeline.MAX_POINTS + 10; round++) {
            for (ThreadRecord w : windows) {
                ThreadRecord later = new ThreadRecord(w.type(), w.epochMillis() + round * 1000L, w.report());
                timeline.add(later);
                fed.add(later);
            }
        }
        assertTrue(timeline.endMillis().length <= Timeline.MAX_POINTS, "at most " + Timeline.MAX_POINTS);
        assertEquals(
                fed.get(fed.size() - 1).epochMillis(),
                timeline.endMillis()[timeline.endMillis().length - 1],
                "the latest kept");
        long expected = fed.stream()
                .mapToLong(r -> r.report().counters().get("task-clock"))
                .sum();
        assertEquals(expected, total(timeline, "task-clock"), expected * 1e-12);
    }

    /**
     * The demo's ping and pong as two threads of one pool ({@code worker-1}, {@code worker-2}): the group's windows
     * add up to the sum of its threads' final records, and its time is the recording's, not theirs added.
     */
    @Test
    void aGroupsWindowsAddUpToItsThreadsFinalRecords(@TempDir Path dir) throws Exception {
        Path pool = dir.resolve("pool.jsonl");
        Files.writeString(
                pool,
                Files.readString(fixture("agent-pingpong.jsonl"))
                        .replace("\"name\":\"ping\"", "\"name\":\"worker-1\"")
                        .replace("\"name\":\"pong\"", "\"name\":\"worker-2\""));
        List<ThreadRecord> finals = new ArrayList<>();
        Recording.read(pool, r -> {
            if (r.isFinal()) {
                finals.add(r);
            }
        });
        assertEquals(2, finals.size());
        Timelines timelines = Timelines.read(pool, Set.of(), Set.of("worker"));
        assertEquals(Set.of(), timelines.threads().keySet());
        Timeline group = timelines.groups().get("worker");
        List<ThreadGroups.Group> groups = ThreadGroups.of(finals);
        assertEquals(1, groups.size(), "one group");
        assertEquals(2, groups.get(0).threads());
        for (String event : finals.get(0).report().counters().keySet()) {
            long sum = finals.stream()
                    .mapToLong(r -> r.report().counters().get(event))
                    .sum();
            assertEquals(sum, groups.get(0).total().report().counters().get(event), event);
            assertEquals(sum, total(group, event), 0.5, event);
        }
        long[] ends = group.endMillis();
        assertEquals(ends.length, Arrays.stream(ends).distinct().count(), "a window per time written");
        assertEquals(
                sum(group.windowNanos()),
                group.windowNanos()[0] + (ends[ends.length - 1] - ends[0]) * 1e6,
                1,
                "after the first window, the time that passed");
    }

    private static double total(Timeline timeline, String event) {
        Timeline.Series series = series(timeline, event);
        double[] windows = timeline.windowNanos();
        double total = 0;
        for (int i = 0; i < windows.length; i++) {
            // a rate per second, or for a time event the share of the window
            total += series.values()[i] * windows[i] / (series.unit() == DerivedMetric.Unit.SHARE ? 1 : 1e9);
        }
        return total;
    }

    private static Timeline.Series series(Timeline timeline, String name) {
        return timeline.series().stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static Path fixture(String name) throws URISyntaxException {
        return Path.of(TimelineTest.class.getResource("/report/" + name).toURI());
    }

    private static double sum(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum;
    }

    private static Timeline timeline(List<ThreadRecord> records) {
        Timeline timeline = new Timeline();
        records.forEach(timeline::add);
        return timeline;
    }

    private static List<ThreadRecord> records(String fixture, String thread) throws IOException, URISyntaxException {
        Path file = fixture(fixture);
        List<ThreadRecord> records = new ArrayList<>();
        Recording recording = Recording.read(file, r -> {
            if (r.report().name().equals(thread)) {
                records.add(r);
            }
        });
        assertTrue(recording.run().isPresent() == fixture.startsWith("agent"), "the agent's recordings say the run");
        assertEquals(
                Set.of(records.get(0).threadKey()),
                Set.copyOf(records.stream().map(ThreadRecord::threadKey).toList()),
                "one thread");
        return records;
    }
}
