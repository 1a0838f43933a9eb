package io.perfpin.cli;

import io.perfpin.event.DerivedMetric;
import io.perfpin.event.GenericEvents;
import io.perfpin.options.UrlText;
import io.perfpin.report.Comparison;
import io.perfpin.report.Hint;
import io.perfpin.report.Hints;
import io.perfpin.report.Json;
import io.perfpin.report.MethodRecord;
import io.perfpin.report.PinSource;
import io.perfpin.report.RunRecord;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadGroups;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.Timeline;
import io.perfpin.report.Timelines;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Renders recordings as one self-contained HTML page: for each recording the machine and the run; the groups of
 * threads ({@link ThreadGroups}: {@code churn-17} is in {@code churn}, as the metrics group them) with a total row;
 * a table of the threads (the busiest {@link #PLOTTED} shown, the others folded); then the busiest groups and
 * threads in full, their totals side by side (a thread's with its hints), and a plot over time of each event's
 * rate and each derived metric that moves, one line per recording, the others listed once with their one value;
 * and the {@code @Counted} methods. The numbers are core's ({@link Comparison}, {@link Timelines},
 * {@link Hints}); this only lays them out.
 *
 * <p>A page shows one or more {@link Part}s: the recordings named, side by side; then, each under its heading, each
 * JVM that one of them started with the same agent options and that recorded beside it (a run's family: JMH's
 * forks), with its own threads.
 *
 * <p>The plots are drawn by uPlot (MIT; about 50 KB), inlined with the data, its copyright and permission notice in a
 * comment in the head: the page fetches nothing, and says so to the browser in its Content-Security-Policy, which
 * lets run only the page's own two scripts, by their hashes.
 * Every text from a recording (thread, event and method names) is escaped for where it goes. When the plots are
 * drawn the body's {@code data-plots} says {@code drawn N}; a script error puts {@code error: ...} there instead.
 */
final class HtmlReport {
    /** Threads shown in full, with plots: a page stays readable whatever the number of threads. */
    static final int PLOTTED = 10;

    /**
     * The most characters of a name a table shows (a JMH worker's, about 70, whole), and a section's heading: a name
     * of 64 Ki characters would push the counts off the page.
     */
    static final int TABLE_NAME_COLUMNS = 80;

    static final int HEADING_NAME_COLUMNS = 200;
    private static final String UPLOT = "META-INF/resources/webjars/uplot/";
    private static final String[] COLORS = {"#1f6feb", "#d1242f", "#1a7f37", "#8250df"};
    private static final String THREAD = "thread";
    private static final String GROUP = "group";

    /** Shown beside page-faults when they differ from it; otherwise page-faults says it all. */
    private static final String PAGE_FAULTS = "page-faults";

    private static final List<String> FAULT_KINDS = List.of("minor-faults", "major-faults");

    /** One recording as the page shows it; its timelines are those of the threads and groups plotted. */
    record Run(
            String label, RunRecord run, List<ThreadRecord> threads, List<MethodRecord> methods, Timelines timelines) {}

    /** A group of threads side by side: its totals in each recording, and how many threads it holds in each. */
    record GroupRow(Comparison.Row totals, List<Integer> threads) {}

    /**
     * Recordings shown side by side, under {@code heading} where the page shows several parts (a run's family).
     *
     * @param heading null for none
     * @param nothing what is said in place of the threads when none of the recordings has one shown; else null
     * @param rows    the threads of {@code runs} side by side, busiest first ({@link Comparison#byName})
     * @param groups  their groups ({@link #groups})
     */
    record Part(String heading, String nothing, List<Run> runs, List<Comparison.Row> rows, List<GroupRow> groups) {}

    private final List<Part> parts;
    private final StringBuilder page = new StringBuilder(1 << 16);
    private final StringBuilder charts = new StringBuilder("[");
    private int chartCount;
    /** The part being written, and its index: its sections' anchors are its own. */
    private int partIndex;

    private List<Run> runs;
    private List<Comparison.Row> rows;
    private List<GroupRow> groups;

    private HtmlReport(List<Part> parts) {
        this.parts = parts;
    }

    /** @param parts the first is the recordings named; the title names them */
    static String render(List<Part> parts) throws IOException {
        return new HtmlReport(parts).page();
    }

    /**
     * The groups that hold more than one thread in some recording, matched by name, busiest first: a group of
     * one is shown as its thread. The first {@link #PLOTTED} are shown in full.
     *
     * @param runs each recording's thread records, as shown
     */
    static List<GroupRow> groups(List<List<ThreadRecord>> runs) {
        List<List<ThreadRecord>> totals = new ArrayList<>();
        List<Map<String, Integer>> sizes = new ArrayList<>();
        for (List<ThreadRecord> threads : runs) {
            List<ThreadRecord> runTotals = new ArrayList<>();
            Map<String, Integer> runSizes = new HashMap<>();
            for (ThreadGroups.Group group : ThreadGroups.of(threads)) {
                runTotals.add(group.total());
                runSizes.put(group.name(), group.threads());
            }
            totals.add(runTotals);
            sizes.add(runSizes);
        }
        List<GroupRow> groups = new ArrayList<>();
        for (Comparison.Row row : Comparison.byName(totals)) {
            List<Integer> threads = new ArrayList<>();
            sizes.forEach(runSizes -> threads.add(runSizes.getOrDefault(row.name(), 0)));
            if (threads.stream().anyMatch(n -> n > 1)) {
                groups.add(new GroupRow(row, threads));
            }
        }
        return groups;
    }

    private String page() throws IOException {
        page.append("<h1>perfpin report</h1>\n");
        Set<String> simulated = new TreeSet<>();
        parts.forEach(part -> part.runs()
                .forEach(run -> Stream.concat(
                                run.threads().stream().map(t -> t.report().pmu()),
                                run.methods().stream().map(MethodRecord::pmu))
                        .filter(Objects::nonNull)
                        .forEach(simulated::add)));
        if (!simulated.isEmpty()) {
            // Made with -Dperfpin.simulated-pmu in tests: no reader may take these counts for a processor's.
            page.append("<p class=\"simulated\"><strong>Simulated PMU</strong>: the hardware counts on this page come"
                            + " from a ")
                    .append(escape(String.join(", ", simulated)))
                    .append(" PMU, made from each thread's"
                            + " task-clock for tests. They are not measurements.</p>\n");
        }
        for (int p = 0; p < parts.size(); p++) {
            part(p);
        }
        charts.append(']');
        // Inside a script element: a '<' in a name could end it, so it is written as the same character escaped.
        String data = ("{\"charts\":" + charts + "}").replace("<", "\\u003c");
        String library = resource(uplotPath("dist/uPlot.iife.min.js"));
        String script = resourceText("html-report.js");
        StringBuilder html = new StringBuilder(page.length() + library.length() + data.length() + 8192);
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                // MIT asks that its notice go with every copy: the page carries uPlot whole, so it carries that too.
                .append(comment("uPlot " + uplotVersion() + ", inlined below (its script and style), is under the"
                        + " MIT License:\n\n" + resource(uplotPath("LICENSE"))))
                .append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src ")
                .append(hash(library))
                .append(' ')
                .append(hash(script))
                .append("; style-src 'unsafe-inline'; img-src data:\">\n")
                .append("<title>perfpin report: ")
                .append(escape(String.join(" vs ", labels())))
                .append("</title>\n")
                .append("<style>\n")
                .append(resource(uplotPath("dist/uPlot.min.css")))
                .append('\n')
                .append(resourceText("html-report.css"))
                .append("</style>\n</head>\n<body data-plots=\"pending\">\n")
                .append(page)
                .append("<script type=\"application/json\" id=\"perfpin-data\">")
                .append(data)
                .append("</script>\n")
                .append("<script>")
                .append(library)
                .append("</script>\n")
                .append("<script>")
                .append(script)
                .append("</script>\n</body>\n</html>\n");
        return html.toString();
    }

    /** One part: its heading, what each recording was made on, then its groups, threads and methods. */
    private void part(int p) {
        Part part = parts.get(p);
        partIndex = p;
        runs = part.runs();
        rows = part.rows();
        groups = part.groups();
        if (part.heading() != null) {
            page.append("<h2 class=\"jvm\" id=\"jvm-")
                    .append(p)
                    .append("\">")
                    .append(escape(part.heading()))
                    .append("</h2>\n");
        }
        for (int r = 0; r < runs.size(); r++) {
            machineAndRun(r);
        }
        if (part.nothing() != null) {
            page.append("<p class=\"nothing\">").append(escape(part.nothing())).append("</p>\n");
        } else {
            groupsOverview();
            overview();
            for (int i = 0; i < Math.min(PLOTTED, groups.size()); i++) {
                group(i);
            }
            for (int i = 0; i < Math.min(PLOTTED, rows.size()); i++) {
                thread(i);
            }
        }
        for (int r = 0; r < runs.size(); r++) {
            methods(r);
        }
    }

    /** The recordings named, which the first part shows. */
    private List<String> labels() {
        List<String> labels = new ArrayList<>();
        parts.get(0).runs().forEach(r -> labels.add(r.label()));
        return labels;
    }

    private void machineAndRun(int r) {
        Run run = runs.get(r);
        page.append("<section class=\"run\"><h2>")
                .append(swatch(r))
                .append(escape(run.label()))
                .append("</h2>\n");
        if (run.run() == null) {
            page.append("<p>The recording does not say what it was made on (it was made by stat, or by an older"
                    + " agent).</p>\n");
        } else {
            page.append("<table class=\"facts\">");
            fact("pid", Long.toString(run.run().pid()));
            run.run().machine().forEach(this::fact);
            run.run().run().forEach(this::fact);
            page.append("</table>\n");
        }
        page.append("</section>\n");
    }

    /** A URL in a fact (the agent's options, the application's command line) shows its credentials masked. */
    private void fact(String label, String value) {
        page.append("<tr><th>")
                .append(escape(label))
                .append("</th><td>")
                .append(escape(UrlText.masked(value)))
                .append("</td></tr>");
    }

    /**
     * The groups of more than one thread, the busiest first, each row its threads' totals, and a last row of all
     * the threads; none when each thread is a group of its own.
     */
    private void groupsOverview() {
        if (groups.isEmpty()) {
            return;
        }
        page.append("<h2>Groups of threads</h2>\n<p>")
                .append(groups.size())
                .append(groups.size() == 1 ? " group" : " groups")
                .append(" of threads named alike (the numeric suffix"
                        + " stripped, as the metrics group them), the busiest first, each row the totals of its"
                        + " threads; the last row totals every thread.</p>\n");
        List<Comparison.Row> totals = new ArrayList<>();
        List<String> sizes = new ArrayList<>();
        groups.forEach(g -> {
            totals.add(g.totals());
            sizes.add(count(g.threads()));
        });
        List<ThreadRecord> all = new ArrayList<>();
        List<Integer> allSizes = new ArrayList<>();
        runs.forEach(r -> {
            all.add(ThreadGroups.total("all threads", r.threads()));
            allSizes.add(r.threads().size());
        });
        totals.add(new Comparison.Row("all threads", all));
        sizes.add(count(allSizes));
        table(totals, 0, totals.size(), events(totals), GROUP, "threads", sizes, totals.size() - 1);
    }

    /** Every thread in one table, the busiest first; beyond {@link #PLOTTED} they are folded away. */
    private void overview() {
        Set<String> events = events(rows);
        page.append("<h2>Threads</h2>\n<p>")
                .append(rows.size())
                .append(rows.size() == 1 ? " thread" : " threads")
                .append(", the busiest first")
                .append(
                        runs.size() > 1
                                ? "; each cell gives every recording's value in"
                                        + " order, then the last over the first"
                                : "")
                .append(".</p>\n");
        List<String> cpus = new ArrayList<>();
        for (Comparison.Row row : rows) {
            List<String> each = new ArrayList<>();
            row.runs().forEach(t -> each.add(t == null ? "-" : cpus(t.report())));
            cpus.add(String.join(" / ", each));
        }
        table(rows, 0, Math.min(PLOTTED, rows.size()), events, THREAD, "cpus", cpus, -1);
        if (rows.size() > PLOTTED) {
            page.append("<details><summary>").append(rows.size() - PLOTTED).append(" more threads</summary>\n");
            table(rows, PLOTTED, rows.size(), events, THREAD, "cpus", cpus, -1);
            page.append("</details>\n");
        }
    }

    /** The events any recording counted for any of {@code rows}. */
    private static Set<String> events(List<Comparison.Row> rows) {
        Set<String> events = new LinkedHashSet<>();
        rows.forEach(row -> row.runs().forEach(t -> {
            if (t != null) {
                events.addAll(t.report().counters().keySet());
            }
        }));
        return events;
    }

    /** How many threads a group holds in each recording. */
    private static String count(List<Integer> threads) {
        List<String> each = new ArrayList<>();
        threads.forEach(n -> each.add(Integer.toString(n)));
        return String.join(" / ", each);
    }

    /**
     * The rows from {@code from} to {@code to} of threads or groups ({@code kind}), after the name a column
     * {@code second} (its cells by row); those shown in full link to their section; row {@code total}, if any, is
     * the total.
     */
    private void table(
            List<Comparison.Row> rows,
            int from,
            int to,
            Set<String> events,
            String kind,
            String second,
            List<String> cells,
            int total) {
        page.append("<table class=\"threads\"><tr><th>")
                .append(kind)
                .append("</th><th>")
                .append(second)
                .append("</th>");
        events.forEach(e -> page.append("<th>").append(escape(e)).append("</th>"));
        page.append("</tr>\n");
        for (int i = from; i < to; i++) {
            Comparison.Row row = rows.get(i);
            boolean link = i < PLOTTED && i != total;
            page.append(i == total ? "<tr class=\"total\"><td>" : "<tr><td>")
                    .append(link ? "<a href=\"#" + anchor(kind, i) + "\">" : "")
                    .append(name(row.name(), TABLE_NAME_COLUMNS))
                    .append(link ? "</a>" : "")
                    .append("</td><td>")
                    .append(escape(cells.get(i)))
                    .append("</td>");
            for (String event : events) {
                page.append("<td class=\"n\">")
                        .append(escape(values(row, event)))
                        .append("</td>");
            }
            page.append("</tr>\n");
        }
        page.append("</table>\n");
    }

    /** Each recording's value, then the change when there are several. */
    private static String values(Comparison.Row row, String event) {
        List<String> values = new ArrayList<>();
        for (ThreadRecord t : row.runs()) {
            Long value = t == null ? null : t.report().counters().get(event);
            values.add(
                    value == null
                            ? "-"
                            : ReportTable.formatCount(
                                    event, value, t.report().coverage().get(event)));
        }
        OptionalDouble change = row.change(event);
        return String.join(" → ", values)
                + (change.isPresent() ? String.format(Locale.ROOT, " (×%.2f)", change.getAsDouble()) : "");
    }

    private static String cpus(ThreadReport report) {
        return report.cpus()
                + (report.pin() == PinSource.NONE ? "" : " (" + report.pin().text() + ")");
    }

    /** A thread in full: where it ran, its totals and hints in each recording, and its plots. */
    private void thread(int index) {
        Comparison.Row row = rows.get(index);
        page.append("<section class=\"thread\" id=\"")
                .append(anchor(THREAD, index))
                .append("\"><h2>")
                .append(name(row.name(), HEADING_NAME_COLUMNS))
                .append("</h2>\n<ul class=\"where\">");
        List<Hint> hints = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            ThreadRecord t = row.runs().get(r);
            page.append("<li>")
                    .append(swatch(r))
                    .append(escape(runs.get(r).label()))
                    .append(": ");
            if (t == null) {
                page.append("not in this recording</li>");
                continue;
            }
            ThreadReport report = t.report();
            page.append("tid ")
                    .append(report.tid())
                    .append(", CPUs ")
                    .append(escape(cpus(report)))
                    .append(escape(cpuChanges(runs.get(r).timelines().threads().get(t.threadKey()))))
                    .append(t.isFinal() ? "" : ", still running when the recording ended (its last sample)")
                    .append("</li>");
            // A recording carries neither the pid nor the pin rules: only a one-CPU affinity shows a pin.
            hints.addAll(Hints.of(report, false, OptionalLong.empty()));
        }
        page.append("</ul>\n");
        totals(row);
        if (!hints.isEmpty()) {
            page.append("<ul class=\"hints\">");
            hints.forEach(h -> page.append("<li>")
                    .append(escape(TerminalText.escape(h.toString())))
                    .append("</li>"));
            page.append("</ul>\n");
        }
        List<Timeline> timelines = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            ThreadRecord t = row.runs().get(r);
            timelines.add(t == null ? null : runs.get(r).timelines().threads().get(t.threadKey()));
        }
        plots(timelines);
        page.append("</section>\n");
    }

    /** A group in full: how many threads it holds, their totals and the plots of their sums over time. */
    private void group(int index) {
        GroupRow group = groups.get(index);
        Comparison.Row row = group.totals();
        page.append("<section class=\"group\" id=\"")
                .append(anchor(GROUP, index))
                .append("\"><h2>group ")
                .append(name(row.name(), HEADING_NAME_COLUMNS))
                .append("</h2>\n<ul class=\"where\">");
        List<Timeline> timelines = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            int threads = group.threads().get(r);
            page.append("<li>")
                    .append(swatch(r))
                    .append(escape(runs.get(r).label()))
                    .append(": ")
                    .append(threads == 0 ? "not in this recording" : threads + (threads == 1 ? " thread" : " threads"))
                    .append("</li>");
            timelines.add(threads == 0 ? null : runs.get(r).timelines().groups().get(row.name()));
        }
        page.append("</ul>\n<p>Over time: each event summed over the group's threads, task-clock in CPUs.</p>\n");
        totals(row);
        plots(timelines);
        page.append("</section>\n");
    }

    /** Where a pin moved the thread while it was recorded. */
    private static String cpuChanges(Timeline timeline) {
        if (timeline == null) {
            return "";
        }
        List<String> cpus = timeline.cpus();
        StringBuilder changes = new StringBuilder();
        for (int i = 1; i < cpus.size(); i++) {
            if (!cpus.get(i).equals(cpus.get(i - 1))) {
                changes.append(changes.length() == 0 ? " (" : ", ")
                        .append(cpus.get(i - 1))
                        .append(" until ")
                        .append(java.time.Instant.ofEpochMilli(timeline.endMillis()[i - 1]));
            }
        }
        return changes.length() == 0 ? "" : changes.append(")").toString();
    }

    private void totals(Comparison.Row row) {
        Set<String> events = new LinkedHashSet<>();
        Set<String> metrics = new LinkedHashSet<>();
        for (ThreadRecord t : row.runs()) {
            if (t != null) {
                events.addAll(t.report().counters().keySet());
                events.addAll(t.report().unsupported().keySet());
                metrics.addAll(t.report().metrics().keySet());
            }
        }
        page.append("<table class=\"totals\"><tr><th></th>");
        for (int r = 0; r < runs.size(); r++) {
            page.append("<th>")
                    .append(swatch(r))
                    .append(escape(runs.get(r).label()))
                    .append("</th>");
        }
        page.append(runs.size() > 1 ? "<th>last / first</th>" : "").append("</tr>\n");
        for (String event : events) {
            page.append("<tr><th>").append(escape(event)).append("</th>");
            for (ThreadRecord t : row.runs()) {
                page.append("<td class=\"n\">")
                        .append(escape(t == null ? "-" : total(t.report(), event)))
                        .append("</td>");
            }
            OptionalDouble change = row.change(event);
            if (runs.size() > 1) {
                page.append("<td class=\"n\">")
                        .append(change.isPresent() ? String.format(Locale.ROOT, "×%.3f", change.getAsDouble()) : "-")
                        .append("</td>");
            }
            page.append("</tr>\n");
        }
        for (String metric : metrics) {
            page.append("<tr><th>").append(escape(metric)).append("</th>");
            for (ThreadRecord t : row.runs()) {
                Double value = t == null ? null : t.report().metrics().get(metric);
                page.append("<td class=\"n\">")
                        .append(value == null ? "-" : String.format(Locale.ROOT, "%.3f", value))
                        .append("</td>");
            }
            page.append(runs.size() > 1 ? "<td></td>" : "").append("</tr>\n");
        }
        page.append("</table>\n");
    }

    private static String total(ThreadReport report, String event) {
        Long value = report.counters().get(event);
        if (value == null) {
            String reason = report.unsupported().get(event);
            return "not counted" + (reason == null ? "" : ": " + reason);
        }
        String source = report.sources().get(event);
        return ReportTable.formatCount(event, value, report.coverage().get(event))
                + (source == null ? "" : " (" + source + ")");
    }

    /** One series of one recording: its points, on seconds since that recording began. */
    private record Line(int run, String event, DerivedMetric.Unit unit, String x, double[] y) {}

    /**
     * A chart per series that moves, with a line per recording, on seconds since that recording began; minor and
     * major faults beside page-faults in its chart, and only where they differ from it (software counters, each
     * enabled on its own, can) and move. A series with one value throughout (a count that stays zero, a thread
     * seen once) is listed once, with that value, instead of plotted flat.
     *
     * @param timelines each recording's, null where it has none
     */
    private void plots(List<Timeline> timelines) {
        Map<String, List<Line>> series = new LinkedHashMap<>();
        for (int r = 0; r < runs.size(); r++) {
            Timeline timeline = timelines.get(r);
            if (timeline == null) {
                continue;
            }
            long origin = origin(runs.get(r));
            long[] ends = timeline.endMillis();
            StringBuilder x = new StringBuilder("[");
            for (int i = 0; i < ends.length; i++) {
                x.append(i == 0 ? "" : ",").append(number((ends[i] - origin) / 1000.0));
            }
            String xs = x.append(']').toString();
            for (Timeline.Series s : timeline.series()) {
                series.computeIfAbsent(s.name(), k -> new ArrayList<>())
                        .add(new Line(r, s.name(), s.unit(), xs, s.values()));
            }
        }
        List<String> notPlotted = new ArrayList<>();
        List<Line> pageFaults = series.get(PAGE_FAULTS);
        if (pageFaults != null) {
            List<Line> alone = List.copyOf(pageFaults);
            for (String kind : FAULT_KINDS) {
                List<Line> lines = series.get(kind);
                if (lines != null && same(alone, lines)) {
                    series.remove(kind);
                    notPlotted.add(kind + ": the same as " + PAGE_FAULTS);
                } else if (lines != null && oneValue(lines).isEmpty()) {
                    series.remove(kind);
                    pageFaults.addAll(lines);
                }
            }
        }
        StringBuilder plots = new StringBuilder();
        series.forEach((name, lines) -> {
            OptionalDouble flat = oneValue(lines);
            if (flat.isPresent()) {
                notPlotted.add(
                        name + " " + format(flat.getAsDouble(), lines.get(0).unit()));
            } else {
                chart(plots, name, lines);
            }
        });
        if (!notPlotted.isEmpty()) {
            page.append("<p class=\"flat\">Not plotted, one value throughout: ")
                    .append(escape(String.join(", ", notPlotted)))
                    .append(".</p>\n");
        }
        if (plots.length() > 0) {
            page.append("<div class=\"plots\">").append(plots).append("</div>\n");
        }
    }

    /** A chart of {@code lines}: each names its recording, and its event where a chart holds several. */
    private void chart(StringBuilder plots, String name, List<Line> lines) {
        String id = "chart-" + chartCount;
        plots.append("<div class=\"plot\" id=\"").append(id).append("\"></div>");
        DerivedMetric.Unit unit = lines.get(0).unit();
        List<String> events = lines.stream().map(Line::event).distinct().toList();
        boolean severalEvents = events.size() > 1;
        String title = unit == DerivedMetric.Unit.PER_SECOND
                ? String.join(", ", events) + " per second"
                : GenericEvents.countsNanoseconds(name) ? name + ": share of wall time" : name;
        List<String> json = new ArrayList<>();
        for (Line line : lines) {
            StringBuilder y = new StringBuilder("[");
            for (int i = 0; i < line.y().length; i++) {
                y.append(i == 0 ? "" : ",").append(number(line.y()[i]));
            }
            String label = runs.get(line.run()).label() + (severalEvents ? " " + line.event() : "");
            json.add("{\"label\":" + Json.quote(label) + ",\"color\":\"" + COLORS[line.run() % COLORS.length]
                    + "\",\"dash\":" + !line.event().equals(name) + ",\"x\":" + line.x() + ",\"y\":" + y + "]}");
        }
        charts.append(chartCount == 0 ? "" : ",")
                .append("{\"id\":\"")
                .append(id)
                .append("\",\"title\":")
                .append(Json.quote(title))
                .append(",\"unit\":\"")
                .append(unit)
                .append("\",\"lines\":[")
                .append(String.join(",", json))
                .append("]}");
        chartCount++;
    }

    /** Whether each recording's two series have the same values: minor-faults that are all the page-faults. */
    private static boolean same(List<Line> a, List<Line> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i).run() != b.get(i).run()
                    || !Arrays.equals(a.get(i).y(), b.get(i).y())) {
                return false;
            }
        }
        return true;
    }

    /** The one value the lines have, as the page shows it, when they have one (or none); empty when they move. */
    private static OptionalDouble oneValue(List<Line> lines) {
        double[] range = {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        lines.forEach(line -> Arrays.stream(line.y()).filter(Double::isFinite).forEach(v -> {
            double shown = Double.parseDouble(number(v));
            range[0] = Math.min(range[0], shown);
            range[1] = Math.max(range[1], shown);
        }));
        return range[0] > range[1]
                ? OptionalDouble.of(Double.NaN)
                : range[0] == range[1] ? OptionalDouble.of(range[0]) : OptionalDouble.empty();
    }

    /** A value as the plots' axes show it. */
    private static String format(double value, DerivedMetric.Unit unit) {
        if (Double.isNaN(value)) {
            return "(no value)";
        }
        if (unit == DerivedMetric.Unit.SHARE) {
            return String.format(Locale.ROOT, "%.3g%%", value * 100);
        }
        String text = value == 0 ? "0" : String.format(Locale.ROOT, "%.3g", value);
        return unit == DerivedMetric.Unit.PER_SECOND ? text + "/s" : text;
    }

    /** Where a recording's time axis starts: when the agent began, else the first window plotted. */
    private static long origin(Run run) {
        if (run.run() != null) {
            return run.run().epochMillis();
        }
        return Stream.concat(run.timelines().threads().values().stream(), run.timelines().groups().values().stream())
                .mapToLong(t -> t.endMillis().length == 0 ? Long.MAX_VALUE : t.endMillis()[0])
                .min()
                .orElse(0);
    }

    private void methods(int r) {
        List<MethodRecord> methods = runs.get(r).methods();
        if (methods.isEmpty()) {
            return;
        }
        page.append("<h2>")
                .append(swatch(r))
                .append("@Counted methods: ")
                .append(escape(runs.get(r).label()))
                .append("</h2>\n<table class=\"methods\"><tr>");
        MethodTable.COLUMNS.forEach(c -> page.append("<th>").append(escape(c)).append("</th>"));
        page.append("</tr>\n");
        for (List<String> cells : MethodTable.rows(methods)) {
            page.append("<tr>");
            for (int c = 0; c < MethodTable.COLUMNS.size(); c++) {
                page.append(c == 0 || c == 2 ? "<td>" : "<td class=\"n\">")
                        .append(escape(cells.get(c)))
                        .append("</td>");
            }
            page.append("</tr>\n");
        }
        page.append("</table>\n");
    }

    private static String swatch(int run) {
        return "<span class=\"swatch\" style=\"background:" + COLORS[run % COLORS.length] + "\"></span>";
    }

    /** Unique in the page: a part after the first (a JVM the named one started) has its own. */
    private String anchor(String kind, int row) {
        return (partIndex == 0 ? "" : "jvm-" + partIndex + "-") + kind + "-" + row;
    }

    /** Four significant digits, as JSON: what a plot can show; null for a window without a value. */
    private static String number(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "null" : String.format(Locale.ROOT, "%.4g", value);
    }

    /**
     * A thread's or group's name in the page, as a terminal shows it ({@link TerminalText#escape}: controls, line
     * separators, bidi controls and half characters written visibly, a backslash doubled, so that no two names look
     * alike and none reverses the text after it), in a {@code bdi} element that keeps a right-to-left name's
     * direction to itself; one longer than {@code columns} is cut in its middle ({@link TerminalText#fit}), whole
     * in its title.
     */
    static String name(String name, int columns) {
        String shown = TerminalText.escape(name);
        String fitted = TerminalText.fit(shown, columns);
        return (fitted.equals(shown) ? "<bdi>" : "<bdi title=\"" + escape(shown) + "\">") + escape(fitted) + "</bdi>";
    }

    /**
     * Text for an HTML element or a quoted attribute. Half a character (a lone surrogate, which a thread name may
     * hold and UTF-8 cannot) is U+FFFD, as an HTML parser shows a reference to one.
     */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                // what a terminal would act on shown replaced, as a lone surrogate is: a page printed to a terminal
                // acts on none, and a reference to a control would be a parse error (and C1's, Windows-1252 letters)
                default ->
                    out.append(
                            Json.isLoneSurrogate(text, i) || TerminalText.isUnsafe(c) && c != '\n' && c != '\t'
                                    ? '\ufffd'
                                    : c);
            }
        }
        return out.toString();
    }

    /** The CSP source that lets exactly this inline script run. */
    private static String hash(String script) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(script.getBytes(StandardCharsets.UTF_8));
            return "'sha256-" + Base64.getEncoder().encodeToString(digest) + "'";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no SHA-256", e);
        }
    }

    /** The webjar's path for uPlot's file, at the version the CLI was built with. */
    private static String uplotPath(String file) throws IOException {
        return UPLOT + uplotVersion() + "/" + file;
    }

    /** The version of uPlot the CLI was built with, as its webjar says. */
    static String uplotVersion() throws IOException {
        Properties pom = new Properties();
        try (InputStream in = resourceStream("META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            pom.load(in);
        }
        return pom.getProperty("version");
    }

    /** {@code text} as an HTML comment, refused if it could end the comment early. */
    private static String comment(String text) throws IOException {
        if (text.contains("--")) {
            throw new IOException("cannot be put in a comment, it holds '--': "
                    + text.lines().findFirst().orElse(""));
        }
        return "<!--\n" + text.strip() + "\n-->\n";
    }

    private static String resourceText(String name) throws IOException {
        return resource("io/perfpin/cli/" + name);
    }

    /** A resource as text, refused if it could end the element it is inlined in. */
    private static String resource(String path) throws IOException {
        try (InputStream in = resourceStream(path)) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            String lower = text.toLowerCase(Locale.ROOT);
            if (lower.contains("</script") || lower.contains("</style")) {
                throw new IOException(path + " cannot be inlined: it holds the end of a script or style element");
            }
            return text;
        }
    }

    private static InputStream resourceStream(String path) throws IOException {
        InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(path);
        if (in == null) {
            throw new IOException("perfpin's jar lacks " + path + ": rebuild it");
        }
        return in;
    }
}
