package io.perfpin.cli;

import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How a table of threads is laid out: which value columns it shows, the order of its rows and how many, how wide it
 * may be, and how it names a thread's state.
 *
 * @param columns      the events and metrics to show, in this order, those the reports have; null for every one
 * @param sort         the column the rows are sorted by, largest first ({@code thread} and {@code tid} in
 *                     ascending order); null for the order given
 * @param top          the most rows; 0 for all
 * @param width        the most terminal columns a row takes, names cut to fit; 0 for whole names
 * @param runningLabel what the state column says of a thread whose counting stopped while it ran; null when a
 *                     running thread needs no word (a live window)
 * @param notCounted   whether the events not counted are listed below the table, with their reasons
 * @param givesWay     whether the last of {@code columns} are left out where the table would not fit {@code width}
 *                     with names cut to their shortest: the columns are in the order of what they say most
 */
record TableLayout(
        List<String> columns,
        String sort,
        int top,
        int width,
        String runningLabel,
        boolean notCounted,
        boolean givesWay) {
    /** Every column, the rows as given, names whole: what CSV and JSON keep, and what --wide shows. */
    static final TableLayout ALL = new TableLayout(null, null, 0, 0, null, true, false);

    /** The value columns to show, of the events and metrics the reports have. */
    List<String> columns(List<String> events, List<String> metrics) {
        List<String> all = new ArrayList<>(events);
        all.addAll(metrics);
        if (columns == null) {
            return all;
        }
        List<String> shown = new ArrayList<>();
        columns.stream().filter(all::contains).forEach(shown::add);
        return shown;
    }

    /** The word for a state in the state column; null for none. */
    String state(ThreadState state) {
        if (state == ThreadState.ENDED) {
            return "ended";
        }
        return state == ThreadState.RUNNING ? runningLabel : null;
    }

    /**
     * The reports in this layout's order, no more than {@link #top}. A row that follows the one before it
     * ({@link ThreadReport#follows}: a virtual group's p50 and p99) moves with it, right under it, whatever its values.
     */
    List<ThreadReport> sorted(List<ThreadReport> reports) {
        List<ThreadReport> rows = new ArrayList<>(reports);
        if (sort != null) {
            List<List<ThreadReport>> blocks = new ArrayList<>();
            for (ThreadReport r : reports) {
                if (r.follows() && !blocks.isEmpty()) {
                    blocks.get(blocks.size() - 1).add(r);
                } else {
                    blocks.add(new ArrayList<>(List.of(r)));
                }
            }
            blocks.sort(new BlockOrder(sort));
            rows.clear();
            blocks.forEach(rows::addAll);
        }
        return top > 0 && rows.size() > top ? rows.subList(0, top) : rows;
    }

    /**
     * Blocks of rows in the order of their first rows by a column, a row that sums threads (tid 0) below the threads.
     * A class, not Comparator's combinators: each of those is a lambda of the JDK's, made at run time (the archive
     * keeps only perfpin's), 3 ms in all before a table of stat's.
     */
    private record BlockOrder(String column) implements Comparator<List<ThreadReport>> {
        @Override
        public int compare(List<ThreadReport> a, List<ThreadReport> b) {
            ThreadReport x = a.get(0);
            ThreadReport y = b.get(0);
            if ((x.tid() == 0) != (y.tid() == 0)) {
                return x.tid() == 0 ? 1 : -1;
            }
            if (column.equals("thread")) {
                return x.name().compareTo(y.name());
            }
            if (column.equals("tid")) {
                return Integer.compare(x.tid(), y.tid());
            }
            return Double.compare(value(y, column), value(x, column)); // largest first
        }
    }

    /** A row's value in a column; a row without one sorts last. */
    private static double value(ThreadReport r, String column) {
        Long count = r.counters().get(column);
        if (count != null) {
            return count;
        }
        Double metric = r.metrics().get(column);
        return metric != null ? metric : Double.NEGATIVE_INFINITY;
    }

    TableLayout sortedBy(String column) {
        return new TableLayout(columns, column, top, width, runningLabel, notCounted, givesWay);
    }

    TableLayout withTop(int rows) {
        return new TableLayout(columns, sort, rows, width, runningLabel, notCounted, givesWay);
    }

    TableLayout withRunningLabel(String label) {
        return new TableLayout(columns, sort, top, width, label, notCounted, givesWay);
    }

    TableLayout withNotCounted() {
        return new TableLayout(columns, sort, top, width, runningLabel, true, givesWay);
    }
}
