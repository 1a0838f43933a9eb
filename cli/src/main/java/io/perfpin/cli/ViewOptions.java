package io.perfpin.cli;

import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * {@code --columns}, {@code --wide}, {@code --sort} and {@code --top}: how every command that prints a table of
 * threads lays it out (the live view of {@code top}, {@code attach} and {@code run}, their totals, {@code stat},
 * {@code report}). By default it fits 120 columns, on a terminal or not, so that it reads in a split pane and in a
 * log alike: the busiest threads first, a few columns that say most (the last of them left out where even those do
 * not fit), names cut in their middle to fit.
 */
final class ViewOptions {
    /** The width a view fits by default: a terminal split in two, or a laptop's at a readable size. */
    static final int DEFAULT_WIDTH = 120;
    /**
     * The busiest first: the time on a CPU, then IPC where a PMU counts it, then the scheduler's and the memory's
     * counts. Cycles and instructions stay off (in --wide): with them a frame would not fit {@link #DEFAULT_WIDTH}.
     */
    static final List<String> DEFAULT_COLUMNS =
            List.of("task-clock", "cpu-utilisation", "ipc", "context-switches", "page-faults");

    static final String DEFAULT_SORT = "task-clock";

    @Option(
            names = "--columns",
            paramLabel = "LIST",
            split = ",",
            description = "The events and metrics to show, comma-separated, in this order (default: task-clock,"
                    + " cpu-utilisation, ipc, context-switches, page-faults, those counted and that fit 120"
                    + " columns).")
    List<String> columns;

    @Option(names = "--wide", description = "Show every event and metric, and whole names, however wide.")
    boolean wide;

    @Option(
            names = "--sort",
            paramLabel = "COLUMN",
            defaultValue = DEFAULT_SORT,
            description = "Sort the threads by this column, largest first (thread and tid: ascending); default"
                    + " ${DEFAULT-VALUE}, the busiest first. In a live view on a terminal, the key s sorts by the next"
                    + " column.")
    String sort;

    @Option(
            names = "--top",
            paramLabel = "N",
            converter = Count.class,
            description =
                    "Show at most N threads a table (default: all; in a live view on a terminal, those that" + " fit).")
    Integer top;

    /** The options as when only {@code --columns columns} is given, for a view made in code ({@code demo}'s). */
    static ViewOptions ofColumns(List<String> columns) {
        ViewOptions options = new ViewOptions();
        options.columns = columns;
        options.sort = DEFAULT_SORT;
        return options;
    }

    /**
     * The layout of a live frame; {@code rows} is what fits the screen when --top was not given (0: no limit). The
     * events not counted are said beside the frame, once.
     */
    TableLayout layout(int rows) {
        List<String> shown = wide ? null : columns != null ? columns : DEFAULT_COLUMNS;
        // Only the default columns give way to the width: those the user named are shown, names cut further.
        return new TableLayout(
                shown, sort, top != null ? top : rows, wide ? 0 : DEFAULT_WIDTH, null, false, !wide && columns == null);
    }

    /**
     * The layout of a table printed once (totals, stat, report): every row but --top's, the events not counted below.
     */
    TableLayout table() {
        return layout(0).withNotCounted();
    }

    static final class Count implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String token) {
            try {
                int n = Integer.parseInt(token);
                if (n > 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw new IllegalArgumentException(
                    "bad count '" + token + "': expected a whole number of threads, 1 or" + " more");
        }
    }
}
