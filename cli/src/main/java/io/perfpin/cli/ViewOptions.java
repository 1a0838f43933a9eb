package io.perfpin.cli;

import io.perfpin.event.DerivedMetric;
import io.perfpin.event.EventParser;
import io.perfpin.event.GenericEvents;
import io.perfpin.event.InvalidEventException;
import io.perfpin.event.NearestNames;
import io.perfpin.event.Preset;
import io.perfpin.event.Presets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

    /** The columns every table has where they apply, whatever --columns says: not values, and not chosen. */
    static final List<String> IDENTITY_COLUMNS = List.of("thread", "tid", "cpus", "cpu", "state");

    /** The columns --sort takes beside the values: the rows in the order of their names or of their tids. */
    static final List<String> NAME_SORTS = List.of("thread", "tid");

    @Option(
            names = "--columns",
            paramLabel = "LIST",
            split = ",",
            converter = Column.class,
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
            converter = SortKey.class,
            description = "Sort the threads by this column, largest first (thread and tid: ascending); default"
                    + " ${DEFAULT-VALUE}, the busiest first. In a live view on a terminal, the key s sorts by the next"
                    + " column.")
    String sort = DEFAULT_SORT;

    @Option(
            names = "--top",
            paramLabel = "N",
            converter = Count.class,
            description =
                    "Show at most N threads a table (default: all; in a live view on a terminal, those that" + " fit).")
    Integer top;

    /** These options, with {@code columns} where neither --columns nor --wide was given ({@code demo}'s own). */
    ViewOptions withDefaultColumns(List<String> defaults) {
        ViewOptions options = new ViewOptions();
        options.columns = wide || columns != null ? columns : defaults;
        options.wide = wide;
        options.sort = sort;
        options.top = top;
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

    /**
     * Refuses a --columns or --sort name that the events {@code selected} (stat's, or the agent's that run or attach
     * loads) do not give: an event they leave out, or a metric of no preset among them. Shown, it could only be empty;
     * left out, it would be a column silently missing, or rows silently unsorted.
     */
    void checkColumns(EventsOption.Selection selected) {
        Set<String> given = new HashSet<>(selected.list.names());
        selected.list.metrics().forEach(m -> given.add(m.name()));
        selected.list.unsupported().forEach(u -> given.add(u.event())); // selected, and said as not counted
        if (sortsByAValue() && !given.contains(sort)) {
            throw notCounted("--sort", sort, selected);
        }
        if (columns == null || wide) {
            return;
        }
        for (String column : columns) {
            if (!given.contains(column)) {
                throw notCounted("--columns", column, selected);
            }
        }
    }

    /** Whether --sort names a value column, given: the default falls back to the first event counted. */
    private boolean sortsByAValue() {
        return !sort.equals(DEFAULT_SORT) && !NAME_SORTS.contains(sort);
    }

    private static IllegalArgumentException notCounted(String option, String column, EventsOption.Selection selected) {
        String add = Presets.all().stream()
                .filter(p -> p.metrics().stream().anyMatch(m -> m.name().equals(column)))
                .map(Preset::name)
                .findFirst()
                .orElse(column);
        return new IllegalArgumentException(option + " " + column + ": --events " + selected.text
                + " does not count it; add " + (add.equals(column) ? "it" : "its preset") + ": --events "
                + selected.text + "," + add);
    }

    /**
     * Refuses a --columns or --sort name that is not among {@code given}, the columns of what {@code source} holds (its
     * events and metrics): left out of a table, it would be a column silently missing, or rows silently unsorted.
     * Nothing is checked where the columns are not known (empty).
     */
    void checkColumns(List<String> given, String source) {
        if (given.isEmpty()) {
            return;
        }
        if (sortsByAValue() && !given.contains(sort)) {
            throw notAmong("--sort", sort, given, source);
        }
        if (columns == null || wide) {
            return;
        }
        for (String column : columns) {
            if (!given.contains(column)) {
                throw notAmong("--columns", column, given, source);
            }
        }
    }

    private static IllegalArgumentException notAmong(String option, String column, List<String> given, String source) {
        return new IllegalArgumentException(
                option + " " + column + ": not among the columns of " + source + ": " + String.join(", ", given));
    }

    /**
     * A --columns name, checked with the command line so that a misspelt one is a usage error before any target is
     * touched, rather than a column silently missing: an event, as perfpin spells it (cpu-cycles gives cycles, the
     * name of its column), or a metric. The identity columns are refused with why: naming one could not show it.
     */
    static final class Column implements ITypeConverter<String> {
        @Override
        public String convert(String token) {
            if (IDENTITY_COLUMNS.contains(token)) {
                throw new IllegalArgumentException("column '" + token + "' is not chosen: "
                        + String.join(", ", IDENTITY_COLUMNS) + " are shown wherever they apply; --columns"
                        + " chooses the values: " + allowed());
            }
            return value(token, "column", List.of());
        }
    }

    /** A --sort column: a value column as {@link Column} checks it, or the thread's name or tid. */
    static final class SortKey implements ITypeConverter<String> {
        @Override
        public String convert(String token) {
            return NAME_SORTS.contains(token) ? token : value(token, "sort column", NAME_SORTS);
        }
    }

    /** The value column {@code token} names, spelt as tables head it; else a usage error naming what is allowed. */
    private static String value(String token, String kind, List<String> more) {
        for (DerivedMetric metric : Presets.metrics()) {
            if (metric.name().equals(token)) {
                return token;
            }
        }
        try {
            return new EventParser().parse(token).name();
        } catch (InvalidEventException e) {
            List<String> names = new ArrayList<>(more);
            Presets.metrics().forEach(m -> names.add(m.name()));
            names.addAll(GenericEvents.names());
            List<String> nearest = NearestNames.nearest(token, names);
            throw new IllegalArgumentException("unknown " + kind + " '" + token + "': expected "
                    + (more.isEmpty() ? "" : String.join(", ", more) + ", ") + allowed()
                    + (nearest.isEmpty() ? "" : "; did you mean " + String.join(", ", nearest) + "?"));
        }
    }

    /** What a value column may be, in words: the metrics by name, the events by where they are listed. */
    private static String allowed() {
        List<String> metrics = new ArrayList<>();
        Presets.metrics().forEach(m -> metrics.add(m.name()));
        return "an event (perfpin events lists them) or a metric: " + String.join(", ", metrics);
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
            throw new IllegalArgumentException("bad count '" + token + "': expected a whole number of threads, from 1"
                    + " to " + Integer.MAX_VALUE);
        }
    }
}
