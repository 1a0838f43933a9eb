package io.perfpin.report;

import io.perfpin.export.ThreadGroupName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The threads of a recording by group, as the metrics group them ({@link ThreadGroupName}: {@code churn-17} is in
 * {@code churn}), each group's totals as one record: a pool that ran a thousand threads reads as one row.
 */
public final class ThreadGroups {
    /**
     * One group: how many threads it holds and their totals, a record named as the group whose counters are the
     * sums of its threads' (an event only where one of them counted it), its wall time theirs added, its metrics
     * of those sums, final when each thread's is.
     */
    public record Group(String name, int threads, ThreadRecord total) {}

    private ThreadGroups() {}

    /** @param records each thread's record, as a report shows them; the groups in the order their first comes */
    public static List<Group> of(List<ThreadRecord> records) {
        Map<String, List<ThreadRecord>> byGroup = new LinkedHashMap<>();
        records.forEach(
                r -> byGroup.computeIfAbsent(ThreadGroupName.of(r.report().name()), k -> new ArrayList<>())
                        .add(r));
        List<Group> groups = new ArrayList<>();
        byGroup.forEach((name, threads) -> groups.add(new Group(name, threads.size(), total(name, threads))));
        return groups;
    }

    /** The totals of {@code threads} as one record named {@code name}, as a {@link Group} holds them. */
    public static ThreadRecord total(String name, List<ThreadRecord> threads) {
        Map<String, Long> counters = new LinkedHashMap<>();
        long wallNanos = 0;
        long latest = 0;
        boolean allFinal = true;
        for (ThreadRecord t : threads) {
            t.report().counters().forEach((event, value) -> counters.merge(event, value, Long::sum));
            // unknown (-1) for one, as a virtual thread's is, unknown for the group
            wallNanos = wallNanos < 0 || t.report().wallNanos() < 0
                    ? -1
                    : wallNanos + t.report().wallNanos();
            latest = Math.max(latest, t.epochMillis());
            allFinal &= t.isFinal();
        }
        ThreadReport report = ThreadReport.fromValues(
                name, 0, 0, "", wallNanos, counters, Map.of(), ThreadReport.metrics(counters, wallNanos), Map.of());
        return new ThreadRecord(allFinal ? ThreadRecords.THREAD : ThreadRecords.SAMPLE, latest, report);
    }
}
