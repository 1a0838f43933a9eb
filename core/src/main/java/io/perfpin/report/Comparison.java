package io.perfpin.report;

import io.perfpin.event.GenericEvents;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The threads of one or more recordings side by side (before and after a change), matched by name, since TIDs
 * and Java ids differ from run to run; a name that comes again within one recording is told apart as
 * {@code name #2}, {@code name #3}, in the order the threads appear. Rows come busiest first: by the most
 * task-clock (or, without it, the first event counted) in any of the recordings.
 */
public final class Comparison {
    /** One thread: its record in each recording, null where that recording has none. */
    public record Row(String name, List<ThreadRecord> runs) {
        /**
         * The last recording's value of {@code event} over the first's, when both have one and the first is not 0:
         * after over before.
         */
        public OptionalDouble change(String event) {
            ThreadRecord first = runs.get(0);
            ThreadRecord last = runs.get(runs.size() - 1);
            if (runs.size() < 2 || first == null || last == null) {
                return OptionalDouble.empty();
            }
            Long before = first.report().counters().get(event);
            Long after = last.report().counters().get(event);
            return before == null || after == null || before == 0
                    ? OptionalDouble.empty()
                    : OptionalDouble.of((double) after / before);
        }
    }

    private Comparison() {}

    /** @param runs each recording's thread records, as shown */
    public static List<Row> byName(List<List<ThreadRecord>> runs) {
        Map<String, ThreadRecord[]> rows = new LinkedHashMap<>();
        for (int run = 0; run < runs.size(); run++) {
            Map<String, Integer> seen = new HashMap<>();
            for (ThreadRecord record : runs.get(run)) {
                String name = record.report().name();
                int n = seen.merge(name, 1, Integer::sum);
                int size = runs.size();
                rows.computeIfAbsent(n == 1 ? name : name + " #" + n, k -> new ThreadRecord[size])[run] = record;
            }
        }
        List<Row> result = new ArrayList<>();
        rows.forEach((name, records) -> result.add(new Row(name, Arrays.asList(records))));
        result.sort(Comparator.comparingDouble(Comparison::busiest).reversed());
        return result;
    }

    /** What ranks a thread: its task-clock (or cpu-clock), else its first event counted, in its busiest run. */
    private static double busiest(Row row) {
        double most = 0;
        for (ThreadRecord record : row.runs()) {
            if (record != null) {
                Map<String, Long> counters = record.report().counters();
                double value = counters.entrySet().stream()
                        .filter(e -> GenericEvents.countsNanoseconds(e.getKey()))
                        .mapToDouble(Map.Entry::getValue)
                        .findFirst()
                        .orElse(
                                counters.isEmpty()
                                        ? 0
                                        : counters.values().iterator().next());
                most = Math.max(most, value);
            }
        }
        return most;
    }
}
