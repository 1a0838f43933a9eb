package io.perfpin.report;

import io.perfpin.export.ThreadGroupName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The records of virtual threads folded into their groups, so that a recording of 100,000 of them reads as a few
 * rows: each group ({@link ThreadGroupName}: {@code vt-17} is in {@code vt}) becomes its totals ({@link ThreadGroups})
 * and the p50 and p99 of a member's totals, per event, each a row of its own that any table shows as a thread's.
 * Platform threads are left as they are, in their place, and so is a virtual thread alone in its group.
 */
public final class VirtualThreadGroups {
    /** What makes a member busy, where it was counted. */
    private static final String BUSIEST_BY = "task-clock";

    private VirtualThreadGroups() {}

    /**
     * @param records a recording's threads, in its order
     * @return its platform threads, then per group of virtual threads, in the order its first comes, the rows
     *         {@code NAME (N virtual threads)}, {@code NAME p50 of one} and {@code NAME p99 of one}
     */
    public static List<ThreadRecord> folded(List<ThreadRecord> records) {
        return folded(records, 0);
    }

    /**
     * As {@link #folded(List)}, each group followed by its {@code busiest} busiest members as themselves: those of
     * the most task-clock, or of the most of the group's first event where it has no task-clock.
     */
    public static List<ThreadRecord> folded(List<ThreadRecord> records, int busiest) {
        List<ThreadRecord> rows = new ArrayList<>();
        Map<String, List<ThreadRecord>> groups = new LinkedHashMap<>();
        for (ThreadRecord r : records) {
            if (r.isVirtual()) {
                groups.computeIfAbsent(ThreadGroupName.of(r.report().name()), k -> new ArrayList<>())
                        .add(r);
            } else {
                rows.add(r);
            }
        }
        groups.forEach((name, members) -> {
            if (members.size() == 1) {
                rows.add(members.get(0)); // a group of one is shown as its thread
                return;
            }
            ThreadRecord total = ThreadGroups.total(totalName(name, members.size()), members);
            rows.add(total);
            rows.add(percentile(percentileName(name, 50), members, 50, total));
            rows.add(percentile(percentileName(name, 99), members, 99, total));
            rows.addAll(busiest(members, total, busiest));
        });
        return rows;
    }

    /** The row of a group's totals: its name and how many members they sum. */
    public static String totalName(String group, long members) {
        return group + " (" + members + " virtual thread" + (members == 1 ? ")" : "s)");
    }

    /**
     * The row of a group's totals in a live view, where its members that run count too (their totals so far): how
     * many ended, how many run now.
     */
    public static String liveName(String group, long ended, long running) {
        return group + " (members: " + ended + " ended, " + running + " running)";
    }

    /** The row of a member's total at {@code percent} (50, 99), per event. */
    public static String percentileName(String group, int percent) {
        return group + " p" + percent + " of one";
    }

    /**
     * A row of a member's total at a percentile, per event ({@code counters}), as virtual threads' rows are; it
     * follows its group's totals row ({@link ThreadReport#withFollows}): a sorted table keeps it under that row.
     */
    public static ThreadReport percentileRow(String name, Map<String, Long> counters) {
        return ThreadReport.fromValues(
                        name,
                        ThreadRecords.VIRTUAL_TID,
                        0,
                        "",
                        -1,
                        counters,
                        Map.of(),
                        ThreadReport.metrics(counters, -1),
                        Map.of())
                .withFollows();
    }

    private static List<ThreadRecord> busiest(List<ThreadRecord> members, ThreadRecord total, int count) {
        if (count <= 0 || total.report().counters().isEmpty()) {
            return List.of();
        }
        String event = total.report().counters().containsKey(BUSIEST_BY)
                ? BUSIEST_BY
                : total.report().counters().keySet().iterator().next();
        return members.stream()
                .sorted(Comparator.comparingLong(
                                (ThreadRecord m) -> m.report().counters().getOrDefault(event, 0L))
                        .reversed())
                .limit(count)
                .map(m -> new ThreadRecord(m.type(), m.epochMillis(), m.report().withFollows())) // under the group
                .toList();
    }

    /** Per event, the member's total at {@code percent} (nearest rank); metrics of those values. */
    static ThreadRecord percentile(String name, List<ThreadRecord> members, int percent, ThreadRecord total) {
        Map<String, Long> counters = new LinkedHashMap<>();
        for (String event : total.report().counters().keySet()) {
            long[] values = members.stream()
                    .map(m -> m.report().counters().get(event))
                    .filter(v -> v != null)
                    .mapToLong(Long::longValue)
                    .sorted()
                    .toArray();
            if (values.length > 0) {
                int rank = (int) Math.ceil(percent / 100.0 * values.length);
                counters.put(event, values[Math.max(0, rank - 1)]);
            }
        }
        return new ThreadRecord(total.type(), total.epochMillis(), percentileRow(name, counters));
    }
}
