package io.perfpin.cli;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.event.GenericEvents;
import io.perfpin.report.PinSource;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadReport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Renders thread reports as a text table: a row per thread, a column per counted event and derived metric,
 * a value's coverage beside it when it was multiplexed, then each event that was not counted, once, with
 * its reason, and how many threads were not counted at all, for each reason (out of file descriptors). An
 * event whose values came from elsewhere than perf_event_open has its source in its column's header,
 * {@code task-clock (proc)}, explained once below.
 */
final class ReportTable {
    private ReportTable() {
    }

    static List<String> render(List<ThreadReport> reports) {
        Set<String> events = new LinkedHashSet<>();
        Set<String> metrics = new LinkedHashSet<>();
        Map<String, String> notCounted = new LinkedHashMap<>();
        Map<String, Integer> threadsNotCounted = new LinkedHashMap<>();
        Map<String, String> sources = new LinkedHashMap<>();
        for (ThreadReport r : reports) {
            r.sources().forEach(sources::putIfAbsent);
            events.addAll(r.counters().keySet());
            metrics.addAll(r.metrics().keySet());
            r.unsupported().values().stream().filter(DescriptorBudget::isThreadNotCounted).distinct()
                    .forEach(reason -> threadsNotCounted.merge(reason, 1, Integer::sum));
            r.unsupported().forEach((event, reason) -> {
                if (!DescriptorBudget.isThreadNotCounted(reason)) {
                    notCounted.putIfAbsent(event, reason);
                }
            });
        }
        events.forEach(notCounted::remove);
        boolean lastCpus = reports.stream().anyMatch(r -> r.lastCpu() >= 0);

        List<String> header = new ArrayList<>(List.of("thread", "tid", "cpus"));
        if (lastCpus) {
            header.add("last cpu");
        }
        events.forEach(e -> header.add(sources.containsKey(e) ? e + " (" + sources.get(e) + ")" : e));
        header.addAll(metrics);
        List<List<String>> rows = new ArrayList<>();
        rows.add(header);
        for (ThreadReport r : reports) {
            // tid 0: a row that sums threads
            List<String> row = new ArrayList<>(List.of(r.name(), r.tid() > 0 ? Integer.toString(r.tid()) : "-",
                    r.pin() == PinSource.INHERITED ? r.cpus() + " (inherited)" : r.cpus()));
            if (lastCpus) {
                row.add(r.lastCpu() >= 0 ? Integer.toString(r.lastCpu()) : "-");
            }
            for (String event : events) {
                row.add(r.counters().containsKey(event)
                        ? formatCount(event, r.counters().get(event), r.coverage().get(event)) : "-");
            }
            for (String metric : metrics) {
                Double value = r.metrics().get(metric);
                row.add(value == null ? "-" : String.format(Locale.ROOT, "%.3f", value));
            }
            rows.add(row);
        }
        // Names left, numbers right, as perf stat does.
        List<String> lines = align(rows, c -> c == 0);
        if (sources.containsValue(ThreadCounters.PROC)) {
            lines.add("");
            lines.add("(proc): " + ThreadCounters.PROC_EXPLAINED);
        }
        if (!notCounted.isEmpty()) {
            lines.add("");
            lines.add("Not counted:");
            notCounted.forEach((event, reason) -> lines.add(TerminalText.escape("  " + event + ": " + reason)));
        }
        if (!threadsNotCounted.isEmpty()) {
            lines.add("");
            lines.add("Threads not counted:");
            threadsNotCounted.forEach((reason, threads) -> lines.add("  " + threads + (threads == 1 ? " thread: "
                    : " threads: ") + reason.substring(DescriptorBudget.THREAD_NOT_COUNTED.length())));
        }
        return lines;
    }

    /** Times in milliseconds, counts with thousands separators; coverage in brackets when below 100%. */
    static String formatCount(String event, long value, Double coverage) {
        String text = GenericEvents.countsNanoseconds(event)
                ? String.format(Locale.ROOT, "%.3f ms", value / 1e6)
                : String.format(Locale.ROOT, "%,d", value);
        if (coverage != null && coverage < 1.0) {
            text += String.format(Locale.ROOT, " (%.1f%%)", coverage * 100);
        }
        return text;
    }

    /**
     * Columns padded to their widest cell, two spaces apart; {@code left} says which are left-aligned. Cells
     * hold names from elsewhere (threads, methods, events), so each is made one safe line before it is measured.
     */
    static List<String> align(List<List<String>> rows, IntPredicate left) {
        int columns = rows.get(0).size();
        List<List<String>> cells = new ArrayList<>();
        for (List<String> row : rows) {
            List<String> safe = new ArrayList<>();
            row.forEach(cell -> safe.add(TerminalText.escape(cell)));
            cells.add(safe);
        }
        int[] widths = new int[columns];
        for (List<String> row : cells) {
            for (int c = 0; c < columns; c++) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (List<String> row : cells) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                String cell = row.get(c);
                String padded = left.test(c) ? String.format("%-" + widths[c] + "s", cell)
                        : String.format("%" + widths[c] + "s", cell);
                line.append(c == 0 ? "" : "  ").append(padded);
            }
            lines.add(line.toString().stripTrailing());
        }
        return lines;
    }
}
