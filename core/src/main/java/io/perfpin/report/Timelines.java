package io.perfpin.report;

import io.perfpin.export.ThreadGroupName;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@link Timeline}s of chosen threads and groups of threads ({@link ThreadGroupName}, as the metrics group
 * them) of a recording, read in a pass of their own: a recording may hold thousands of threads, and only those
 * shown over time are kept, each in at most {@link Timeline#MAX_POINTS} points; a group keeps of each of its
 * threads only its latest counts.
 *
 * @param threads by {@link ThreadRecord#threadKey()}
 * @param groups  by group name
 */
public record Timelines(Map<String, Timeline> threads, Map<String, Timeline> groups) {
    /**
     * @param threadKeys the threads to follow, by {@link ThreadRecord#threadKey()}
     * @param groupNames the groups to follow, by {@link ThreadGroupName#of}
     */
    public static Timelines read(Path file, Set<String> threadKeys, Set<String> groupNames) throws IOException {
        Map<String, Timeline> threads = new HashMap<>();
        Map<String, GroupSum> groups = new HashMap<>();
        Recording.read(file, record -> {
            if (threadKeys.contains(record.threadKey())) {
                threads.computeIfAbsent(record.threadKey(), k -> new Timeline()).add(record);
            }
            String group = ThreadGroupName.of(record.report().name());
            if (groupNames.contains(group)) {
                groups.computeIfAbsent(group, k -> new GroupSum()).add(record);
            }
        });
        Map<String, Timeline> groupTimelines = new HashMap<>();
        groups.forEach((name, sum) -> groupTimelines.put(name, sum.end()));
        return new Timelines(threads, groupTimelines);
    }

    /**
     * A group over time: each of its threads' counts since first seen ({@link ThreadTotals}) summed at each time
     * the recording wrote some of them. The agent writes a tick's records with one time, so a window is a tick;
     * the first covers the longest that one of its threads had been counted.
     */
    private static final class GroupSum {
        private final Timeline timeline = new Timeline();
        private final Map<String, ThreadTotals> threads = new HashMap<>();
        /** Each thread's counts as last summed, by thread key: what a record of it replaces in the sum. */
        private final Map<String, Map<String, Double>> summed = new HashMap<>();

        private final Map<String, Double> sum = new LinkedHashMap<>();
        private long pointMillis = Long.MIN_VALUE;
        private long firstMillis;
        private double firstWall;
        private boolean pending;

        void add(ThreadRecord record) {
            if (pending && record.epochMillis() > pointMillis) {
                point();
            }
            if (!pending) {
                pointMillis = Math.max(pointMillis, record.epochMillis());
            }
            ThreadTotals totals = threads.computeIfAbsent(record.threadKey(), k -> new ThreadTotals());
            if (!totals.add(record)) {
                return;
            }
            Map<String, Double> before = summed.computeIfAbsent(record.threadKey(), k -> new HashMap<>());
            totals.counts().forEach((event, value) -> {
                Double was = before.put(event, value);
                sum.merge(event, value - (was == null ? 0 : was), Double::sum);
            });
            timeline.addMetrics(record.report().metrics().keySet());
            if (firstMillis == 0) {
                firstWall = Math.max(firstWall, totals.wallNanos());
            }
            pending = true;
        }

        private void point() {
            if (firstMillis == 0) {
                firstMillis = pointMillis;
            }
            timeline.addPoint(pointMillis, firstWall + (pointMillis - firstMillis) * 1e6, "", sum);
            pending = false;
        }

        Timeline end() {
            if (pending) {
                point();
            }
            return timeline;
        }
    }
}
