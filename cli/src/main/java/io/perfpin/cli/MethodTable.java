package io.perfpin.cli;

import io.perfpin.event.GenericEvents;
import io.perfpin.report.MethodRecord;
import io.perfpin.report.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code @Counted} methods as rows: one per method and event, normalised per call as JMH's perfnorm does,
 * with the per-call median and 99th percentile beside the mean, and the events not counted with their reasons. The
 * CSV's last column, {@code pmu}, names the simulated PMU that made a method's hardware counts (tests only), as the
 * threads' CSV does; empty for the kernel's.
 */
final class MethodTable {
    /** The table's and the page's columns; the page's banner, and a line under the table, name a simulated PMU. */
    static final List<String> COLUMNS = List.of("method", "calls", "event", "total", "per call", "p50", "p99");
    /** The CSV's: a row of its own has to say it. */
    static final List<String> CSV_COLUMNS =
            Stream.concat(COLUMNS.stream(), Stream.of("pmu")).toList();

    private MethodTable() {}

    /** The cells of each row ({@link #CSV_COLUMNS}), unformatted numbers: for CSV, and the page's first ones. */
    static List<List<String>> rows(List<MethodRecord> methods) {
        List<List<String>> rows = new ArrayList<>();
        for (MethodRecord m : methods) {
            for (Map.Entry<String, Long> total : m.totals().entrySet()) {
                String event = total.getKey();
                rows.add(List.of(
                        m.method(),
                        Long.toString(m.calls()),
                        event,
                        Long.toString(total.getValue()),
                        CountText.threeDecimals(m.means().getOrDefault(event, 0.0)),
                        Long.toString(m.p50().getOrDefault(event, 0L)),
                        Long.toString(m.p99().getOrDefault(event, 0L)),
                        m.pmu() == null ? "" : m.pmu()));
            }
        }
        return rows;
    }

    /**
     * Aligned, counts formatted as in the thread table, then what was not counted; in at most {@code width} terminal
     * columns (0: however wide), methods' names cut in their middle as threads' are.
     */
    static List<String> render(List<MethodRecord> methods, int width) {
        List<List<String>> table = new ArrayList<>();
        List<String> notCounted = new ArrayList<>();
        for (MethodRecord m : methods) {
            for (Map.Entry<String, Long> total : m.totals().entrySet()) {
                String event = total.getKey();
                table.add(new ArrayList<>(List.of(
                        TerminalText.escape(m.method()),
                        CountText.grouped(m.calls()),
                        TerminalText.escape(event),
                        ReportTable.formatCount(event, total.getValue(), null),
                        perCall(event, m.means().getOrDefault(event, 0.0)),
                        ReportTable.formatCount(event, m.p50().getOrDefault(event, 0L), null),
                        ReportTable.formatCount(event, m.p99().getOrDefault(event, 0L), null))));
            }
            m.unsupported()
                    .forEach((event, reason) -> notCounted.addAll(ReportTable.fold(
                            TerminalText.escape("  " + m.method() + " " + event + ": " + reason), width)));
        }
        if (width > 0) {
            ReportTable.fitNames(COLUMNS, table, width);
        }
        table.add(0, COLUMNS);
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("@Counted methods, per call:");
        lines.addAll(ReportTable.align(table, column -> column == 0 || column == 2));
        if (!notCounted.isEmpty()) {
            lines.add("Not counted:");
            lines.addAll(notCounted);
        }
        return lines;
    }

    private static String perCall(String event, double mean) {
        return GenericEvents.countsNanoseconds(event)
                ? String.format(Locale.ROOT, "%.3f ms", mean / 1e6)
                : String.format(Locale.ROOT, "%,.1f", mean);
    }
}
