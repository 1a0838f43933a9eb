package io.perfpin.cli;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.event.GenericEvents;
import io.perfpin.report.PinSource;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadReport;
import java.util.ArrayList;
import java.util.HashSet;
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
    /** A name cut to fit keeps at least this much of itself. */
    private static final int MIN_NAME_WIDTH = 12;

    private ReportTable() {}

    /** Every column, every row in the given order, names whole: a report read once. */
    static List<String> render(List<ThreadReport> reports) {
        return render(reports, TableLayout.ALL);
    }

    static List<String> render(List<ThreadReport> reports, TableLayout layout) {
        Set<String> events = new LinkedHashSet<>();
        Set<String> metrics = new LinkedHashSet<>();
        Map<String, Integer> threadsNotCounted = new LinkedHashMap<>();
        Map<String, String> sources = new LinkedHashMap<>();
        for (ThreadReport r : reports) {
            r.sources().forEach(sources::putIfAbsent);
            events.addAll(r.counters().keySet());
            metrics.addAll(r.metrics().keySet());
            r.unsupported().values().stream()
                    .filter(DescriptorBudget::isThreadNotCounted)
                    .distinct()
                    .forEach(reason -> threadsNotCounted.merge(reason, 1, Integer::sum));
        }
        Map<String, String> notCounted = notCounted(reports);
        List<String> values = layout.columns(new ArrayList<>(events), new ArrayList<>(metrics));
        boolean lastCpus = reports.stream().anyMatch(r -> r.lastCpu() >= 0);
        boolean states = reports.stream().anyMatch(r -> layout.state(r.state()) != null);

        List<String> header = new ArrayList<>(List.of("thread", "tid", "cpus"));
        if (lastCpus) {
            header.add("cpu");
        }
        if (states) {
            header.add("state");
        }
        values.forEach(
                c -> header.add(TerminalText.escape(sources.containsKey(c) ? c + " (" + sources.get(c) + ")" : c)));
        List<List<String>> rows = new ArrayList<>();
        Set<Integer> labels = new HashSet<>();
        for (ThreadReport r : layout.sorted(reports)) {
            if (isLabel(r)) {
                labels.add(rows.size());
            }
            // tid 0: a row that sums threads; a name cut in the stats file ends in an ellipsis
            List<String> row = new ArrayList<>(List.of(
                    TerminalText.escape(r.name()) + (r.nameCut() ? "\u2026" : ""),
                    r.tid() > 0 ? Integer.toString(r.tid()) : "-",
                    TerminalText.escape(r.pin() == PinSource.INHERITED ? r.cpus() + " (inherited)" : r.cpus())));
            if (lastCpus) {
                row.add(r.lastCpu() >= 0 ? Integer.toString(r.lastCpu()) : "-");
            }
            if (states) {
                String state = layout.state(r.state());
                row.add(state == null ? "" : state);
            }
            for (String column : values) {
                row.add(cell(r, column));
            }
            rows.add(row);
        }
        int width = layout.width();
        if (width > 0) {
            // A label is read as a sentence: it is never cut, so the names make room for the widest.
            int label = labels.stream()
                    .mapToInt(i -> TerminalText.width(rows.get(i).get(0)))
                    .max()
                    .orElse(0);
            if (layout.givesWay()) {
                leaveOutToFit(header, rows, header.size() - values.size(), width, label);
            }
            fitNames(header, rows, width, labels, label);
        }
        rows.add(0, header);
        // Names left, numbers right, as perf stat does.
        List<String> lines = align(rows, c -> c == 0 || states && c == header.indexOf("state"));
        if (sources.containsValue(ThreadCounters.PROC)) {
            lines.add("");
            lines.addAll(fold("(proc): " + ThreadCounters.PROC_EXPLAINED, width));
        }
        if (layout.notCounted()) {
            lines.addAll(notCountedLines(notCounted, width));
        }
        if (!threadsNotCounted.isEmpty()) {
            lines.add("");
            lines.add("Threads not counted:");
            threadsNotCounted.forEach((reason, threads) -> lines.addAll(fold(
                    "  " + threads + (threads == 1 ? " thread: " : " threads: ")
                            + reason.substring(DescriptorBudget.THREAD_NOT_COUNTED.length()),
                    width)));
        }
        return lines;
    }

    /**
     * Whether the row's name is a label, not a thread's: a row that sums threads (tid 0) says what it sums in
     * brackets, {@code (6 threads: 4 ended, 2 running at exit)}, where a virtual group's row starts with its name.
     */
    private static boolean isLabel(ThreadReport r) {
        return r.tid() == 0 && r.name().startsWith("(");
    }

    /**
     * Leaves out the last value columns (those from {@code first} on, in the order of what they say most) while the
     * rows would not fit {@code width} even with names cut to {@link #MIN_NAME_WIDTH}, and {@code label} columns
     * left to the widest label, which is never cut; the first stays.
     */
    private static void leaveOutToFit(List<String> header, List<List<String>> rows, int first, int width, int label) {
        while (header.size() > first + 1
                && Math.max(label, Math.min(MIN_NAME_WIDTH, widest(header, rows, 0))) + rest(header, rows) > width) {
            int last = header.size() - 1;
            header.remove(last);
            rows.forEach(row -> row.remove(last));
        }
    }

    /**
     * The "Not counted" block, set off by a blank line: each event with its reason, in lines of at most {@code width}
     * terminal columns; nothing when every event was counted. Under a table, or beside CSV or JSON for people.
     */
    static List<String> notCountedLines(Map<String, String> notCounted, int width) {
        List<String> lines = new ArrayList<>();
        if (!notCounted.isEmpty()) {
            lines.add("");
            lines.add("Not counted:");
            notCounted.forEach(
                    (event, reason) -> lines.addAll(fold(TerminalText.escape("  " + event + ": " + reason), width)));
        }
        return lines;
    }

    /** The events not counted in these reports, each with its reason: what the "Not counted" block says. */
    static Map<String, String> notCounted(List<ThreadReport> reports) {
        Map<String, String> notCounted = new LinkedHashMap<>();
        Set<String> counted = new HashSet<>();
        for (ThreadReport r : reports) {
            counted.addAll(r.counters().keySet());
            r.unsupported().forEach((event, reason) -> {
                if (!DescriptorBudget.isThreadNotCounted(reason)) {
                    notCounted.putIfAbsent(event, reason);
                }
            });
        }
        counted.forEach(notCounted::remove);
        return notCounted;
    }

    private static String cell(ThreadReport r, String column) {
        if (r.counters().containsKey(column)) {
            return formatCount(column, r.counters().get(column), r.coverage().get(column));
        }
        Double value = r.metrics().get(column);
        return value == null ? "-" : CountText.threeDecimals(value);
    }

    /**
     * Cuts the names, keeping their start and end with an ellipsis between, so that the rows fit {@code width}
     * columns: two names that differ only at their end stay apart.
     */
    static void fitNames(List<String> header, List<List<String>> rows, int width) {
        fitNames(header, rows, width, Set.of(), 0);
    }

    /** As {@link #fitNames(List, List, int)}, the rows {@code labels} left whole, names given {@code label} or more. */
    private static void fitNames(
            List<String> header, List<List<String>> rows, int width, Set<Integer> labels, int label) {
        int room = Math.max(label, Math.max(MIN_NAME_WIDTH, width - rest(header, rows)));
        for (int i = 0; i < rows.size(); i++) {
            if (!labels.contains(i)) {
                rows.get(i).set(0, TerminalText.fit(rows.get(i).get(0), room));
            }
        }
    }

    /** The columns the columns after the name take, each with the two spaces before it. */
    private static int rest(List<String> header, List<List<String>> rows) {
        int rest = 0;
        for (int c = 1; c < header.size(); c++) {
            rest += 2 + widest(header, rows, c);
        }
        return rest;
    }

    /** The terminal columns of the widest cell of column {@code c}, its header's included. */
    private static int widest(List<String> header, List<List<String>> rows, int c) {
        int widest = TerminalText.width(header.get(c));
        for (List<String> row : rows) {
            widest = Math.max(widest, TerminalText.width(row.get(c)));
        }
        return widest;
    }

    /**
     * A line for people in at most {@code width} terminal columns (0: as it is): broken at spaces, each further
     * line indented four spaces more than the first; a word longer than a line is cut where the line ends.
     */
    static List<String> fold(String line, int width) {
        List<String> lines = new ArrayList<>();
        if (width <= 0 || TerminalText.width(line) <= width) {
            lines.add(line);
            return lines;
        }
        String indent = " ".repeat(line.length() - line.stripLeading().length() + 4);
        String rest = line;
        while (TerminalText.width(rest) > width) {
            int cut = cut(rest, width);
            int space = rest.lastIndexOf(' ', cut);
            boolean atSpace = space > rest.length() - rest.stripLeading().length() && space > indent.length();
            int end = atSpace ? space : cut;
            lines.add(rest.substring(0, end).stripTrailing());
            rest = indent + rest.substring(atSpace ? space + 1 : end).stripLeading();
        }
        lines.add(rest);
        return lines;
    }

    /** The most characters of {@code text} within {@code width} terminal columns, never half a surrogate pair. */
    private static int cut(String text, int width) {
        int used = 0;
        int i = 0;
        while (i < text.length()) {
            int c = text.codePointAt(i);
            int w = TerminalText.width(new String(Character.toChars(c)));
            if (used + w > width) {
                break;
            }
            used += w;
            i += Character.charCount(c);
        }
        return i;
    }

    /** Times in milliseconds, counts with thousands separators; coverage in brackets when below 100%. */
    static String formatCount(String event, long value, Double coverage) {
        String text = GenericEvents.countsNanoseconds(event) ? CountText.millis(value) : CountText.grouped(value);
        if (coverage != null && coverage < 1.0) {
            text += String.format(Locale.ROOT, " (%.1f%%)", coverage * 100);
        }
        return text;
    }

    /**
     * Columns padded to their widest cell, two spaces apart; {@code left} says which are left-aligned. A cell that
     * holds text from elsewhere (a thread's, a method's or an event's name) comes {@link TerminalText#escape escaped},
     * once: the names are cut to fit after they are escaped, and a backslash escaped twice would show doubled.
     */
    static List<String> align(List<List<String>> cells, IntPredicate left) {
        int columns = cells.get(0).size();
        int[] widths = new int[columns];
        for (List<String> row : cells) {
            for (int c = 0; c < columns; c++) {
                widths[c] = Math.max(widths[c], TerminalText.width(row.get(c)));
            }
        }
        List<String> lines = new ArrayList<>();
        for (List<String> row : cells) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                String cell = row.get(c);
                String pad = " ".repeat(widths[c] - TerminalText.width(cell));
                line.append(c == 0 ? "" : "  ").append(left.test(c) ? cell + pad : pad + cell);
            }
            lines.add(line.toString().stripTrailing());
        }
        return lines;
    }
}
