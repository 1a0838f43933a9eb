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
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.Timeline;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;

/**
 * Renders recordings as one self-contained HTML page: for each recording the machine and the run, a table of the
 * threads (the busiest {@link #PLOTTED} shown, the others folded), then for each of those threads its totals side
 * by side with its hints and a plot over time of each event's rate and each derived metric, one line per
 * recording, and the {@code @Counted} methods. The numbers are core's ({@link Comparison}, {@link Timeline},
 * {@link Hints}); this only lays them out.
 *
 * <p>The plots are drawn by uPlot (MIT; about 50 KB), inlined with the data: the page fetches nothing, and says so
 * to the browser in its Content-Security-Policy, which lets run only the page's own two scripts, by their hashes.
 * Every text from a recording (thread, event and method names) is escaped for where it goes. When the plots are
 * drawn the body's {@code data-plots} says {@code drawn N}; a script error puts {@code error: ...} there instead.
 */
final class HtmlReport {
    /** Threads shown in full, with plots: a page stays readable whatever the number of threads. */
    static final int PLOTTED = 10;
    private static final String UPLOT = "META-INF/resources/webjars/uplot/";
    private static final String[] COLORS = {"#1f6feb", "#d1242f", "#1a7f37", "#8250df"};

    /** One recording as the page shows it. */
    record Run(String label, RunRecord run, List<ThreadRecord> threads, List<MethodRecord> methods,
               Map<String, Timeline> timelines) {
    }

    private final List<Run> runs;
    private final List<Comparison.Row> rows;
    private final StringBuilder page = new StringBuilder(1 << 16);
    private final StringBuilder charts = new StringBuilder("[");
    private int chartCount;

    private HtmlReport(List<Run> runs, List<Comparison.Row> rows) {
        this.runs = runs;
        this.rows = rows;
    }

    /** @param rows the threads of {@code runs} side by side, busiest first ({@link Comparison#byName}) */
    static String render(List<Run> runs, List<Comparison.Row> rows) throws IOException {
        return new HtmlReport(runs, rows).page();
    }

    private String page() throws IOException {
        page.append("<h1>perfpin report</h1>\n");
        for (int r = 0; r < runs.size(); r++) {
            machineAndRun(r);
        }
        overview();
        for (int i = 0; i < Math.min(PLOTTED, rows.size()); i++) {
            thread(i);
        }
        for (int r = 0; r < runs.size(); r++) {
            methods(r);
        }
        charts.append(']');
        // Inside a script element: a '<' in a name could end it, so it is written as the same character escaped.
        String data = ("{\"charts\":" + charts + "}").replace("<", "\\u003c");
        String library = resource(uplotPath("dist/uPlot.iife.min.js"));
        String script = resourceText("html-report.js");
        StringBuilder html = new StringBuilder(page.length() + library.length() + data.length() + 8192);
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src ")
                .append(hash(library)).append(' ').append(hash(script))
                .append("; style-src 'unsafe-inline'; img-src data:\">\n")
                .append("<title>perfpin report: ").append(escape(String.join(" vs ", labels()))).append("</title>\n")
                .append("<style>\n").append(resource(uplotPath("dist/uPlot.min.css"))).append('\n')
                .append(resourceText("html-report.css")).append("</style>\n</head>\n<body data-plots=\"pending\">\n")
                .append(page)
                .append("<script type=\"application/json\" id=\"perfpin-data\">").append(data).append("</script>\n")
                .append("<script>").append(library).append("</script>\n")
                .append("<script>").append(script).append("</script>\n</body>\n</html>\n");
        return html.toString();
    }

    private List<String> labels() {
        List<String> labels = new ArrayList<>();
        runs.forEach(r -> labels.add(r.label()));
        return labels;
    }

    private void machineAndRun(int r) {
        Run run = runs.get(r);
        page.append("<section class=\"run\"><h2>").append(swatch(r)).append(escape(run.label())).append("</h2>\n");
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
        page.append("<tr><th>").append(escape(label)).append("</th><td>").append(escape(UrlText.masked(value)))
                .append("</td></tr>");
    }

    /** Every thread in one table, the busiest first; beyond {@link #PLOTTED} they are folded away. */
    private void overview() {
        Set<String> events = new LinkedHashSet<>();
        rows.forEach(row -> row.runs().forEach(t -> {
            if (t != null) {
                events.addAll(t.report().counters().keySet());
            }
        }));
        page.append("<h2>Threads</h2>\n<p>").append(rows.size()).append(rows.size() == 1 ? " thread" : " threads")
                .append(", the busiest first").append(runs.size() > 1 ? "; each cell gives every recording's value in"
                        + " order, then the last over the first" : "").append(".</p>\n");
        overviewTable(0, Math.min(PLOTTED, rows.size()), events);
        if (rows.size() > PLOTTED) {
            page.append("<details><summary>").append(rows.size() - PLOTTED).append(" more threads</summary>\n");
            overviewTable(PLOTTED, rows.size(), events);
            page.append("</details>\n");
        }
    }

    /** The rows from {@code from} to {@code to}; those shown in full link to their section. */
    private void overviewTable(int from, int to, Set<String> events) {
        page.append("<table class=\"threads\"><tr><th>thread</th><th>cpus</th>");
        events.forEach(e -> page.append("<th>").append(escape(e)).append("</th>"));
        page.append("</tr>\n");
        for (int i = from; i < to; i++) {
            Comparison.Row row = rows.get(i);
            boolean linked = i < PLOTTED;
            page.append("<tr><td>").append(linked ? "<a href=\"#" + anchor(i) + "\">" : "")
                    .append(escape(row.name())).append(linked ? "</a>" : "").append("</td><td>");
            List<String> cpus = new ArrayList<>();
            row.runs().forEach(t -> cpus.add(t == null ? "-" : cpus(t.report())));
            page.append(escape(String.join(" / ", cpus))).append("</td>");
            for (String event : events) {
                page.append("<td class=\"n\">").append(escape(values(row, event))).append("</td>");
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
            values.add(value == null ? "-" : ReportTable.formatCount(event, value, t.report().coverage().get(event)));
        }
        OptionalDouble change = row.change(event);
        return String.join(" → ", values) + (change.isPresent()
                ? String.format(Locale.ROOT, " (×%.2f)", change.getAsDouble()) : "");
    }

    private static String cpus(ThreadReport report) {
        return report.cpus() + (report.pin() == PinSource.NONE ? "" : " (" + report.pin().text() + ")");
    }

    /** A thread in full: where it ran, its totals and hints in each recording, and its plots. */
    private void thread(int index) {
        Comparison.Row row = rows.get(index);
        page.append("<section class=\"thread\" id=\"").append(anchor(index)).append("\"><h2>")
                .append(escape(row.name())).append("</h2>\n<ul class=\"where\">");
        List<Hint> hints = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            ThreadRecord t = row.runs().get(r);
            page.append("<li>").append(swatch(r)).append(escape(runs.get(r).label())).append(": ");
            if (t == null) {
                page.append("not in this recording</li>");
                continue;
            }
            ThreadReport report = t.report();
            page.append("tid ").append(report.tid()).append(", CPUs ").append(escape(cpus(report)))
                    .append(escape(cpuChanges(runs.get(r).timelines().get(t.threadKey()))))
                    .append(t.isFinal() ? "" : ", still running when the recording ended (its last sample)")
                    .append("</li>");
            // A recording carries neither the pid nor the pin rules: only a one-CPU affinity shows a pin.
            hints.addAll(Hints.of(report, false, OptionalLong.empty()));
        }
        page.append("</ul>\n");
        totals(row);
        if (!hints.isEmpty()) {
            page.append("<ul class=\"hints\">");
            hints.forEach(h -> page.append("<li>").append(escape(h.toString())).append("</li>"));
            page.append("</ul>\n");
        }
        plots(row);
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
                changes.append(changes.length() == 0 ? " (" : ", ").append(cpus.get(i - 1)).append(" until ")
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
            page.append("<th>").append(swatch(r)).append(escape(runs.get(r).label())).append("</th>");
        }
        page.append(runs.size() > 1 ? "<th>last / first</th>" : "").append("</tr>\n");
        for (String event : events) {
            page.append("<tr><th>").append(escape(event)).append("</th>");
            for (ThreadRecord t : row.runs()) {
                page.append("<td class=\"n\">").append(escape(t == null ? "-" : total(t.report(), event)))
                        .append("</td>");
            }
            OptionalDouble change = row.change(event);
            if (runs.size() > 1) {
                page.append("<td class=\"n\">").append(change.isPresent()
                        ? String.format(Locale.ROOT, "×%.3f", change.getAsDouble()) : "-").append("</td>");
            }
            page.append("</tr>\n");
        }
        for (String metric : metrics) {
            page.append("<tr><th>").append(escape(metric)).append("</th>");
            for (ThreadRecord t : row.runs()) {
                Double value = t == null ? null : t.report().metrics().get(metric);
                page.append("<td class=\"n\">").append(value == null ? "-"
                        : String.format(Locale.ROOT, "%.3f", value)).append("</td>");
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

    /** A chart per series, with a line per recording, on seconds since that recording began. */
    private void plots(Comparison.Row row) {
        Map<String, List<String>> lines = new java.util.LinkedHashMap<>();
        Map<String, DerivedMetric.Unit> units = new java.util.LinkedHashMap<>();
        for (int r = 0; r < runs.size(); r++) {
            ThreadRecord t = row.runs().get(r);
            Timeline timeline = t == null ? null : runs.get(r).timelines().get(t.threadKey());
            if (timeline == null) {
                continue;
            }
            long origin = origin(runs.get(r));
            long[] ends = timeline.endMillis();
            StringBuilder x = new StringBuilder("[");
            for (int i = 0; i < ends.length; i++) {
                x.append(i == 0 ? "" : ",").append(number((ends[i] - origin) / 1000.0));
            }
            x.append(']');
            for (Timeline.Series series : timeline.series()) {
                units.putIfAbsent(series.name(), series.unit());
                StringBuilder y = new StringBuilder("[");
                for (int i = 0; i < series.values().length; i++) {
                    y.append(i == 0 ? "" : ",").append(number(series.values()[i]));
                }
                y.append(']');
                lines.computeIfAbsent(series.name(), k -> new ArrayList<>()).add("{\"label\":"
                        + Json.quote(runs.get(r).label()) + ",\"color\":\"" + COLORS[r % COLORS.length] + "\",\"x\":"
                        + x + ",\"y\":" + y + "}");
            }
        }
        if (lines.isEmpty()) {
            return;
        }
        page.append("<div class=\"plots\">");
        lines.forEach((name, runLines) -> {
            String id = "chart-" + chartCount;
            page.append("<div class=\"plot\" id=\"").append(id).append("\"></div>");
            DerivedMetric.Unit unit = units.get(name);
            String title = unit == DerivedMetric.Unit.PER_SECOND ? name + " per second"
                    : GenericEvents.countsNanoseconds(name) ? name + ": share of wall time" : name;
            charts.append(chartCount == 0 ? "" : ",").append("{\"id\":\"").append(id).append("\",\"title\":")
                    .append(Json.quote(title)).append(",\"unit\":\"").append(unit).append("\",\"lines\":[")
                    .append(String.join(",", runLines)).append("]}");
            chartCount++;
        });
        page.append("</div>\n");
    }

    /** Where a recording's time axis starts: when the agent began, else its first window of a plotted thread. */
    private static long origin(Run run) {
        if (run.run() != null) {
            return run.run().epochMillis();
        }
        return run.timelines().values().stream().mapToLong(t -> t.endMillis().length == 0 ? Long.MAX_VALUE
                : t.endMillis()[0]).min().orElse(0);
    }

    private void methods(int r) {
        List<MethodRecord> methods = runs.get(r).methods();
        if (methods.isEmpty()) {
            return;
        }
        page.append("<h2>").append(swatch(r)).append("@Counted methods: ").append(escape(runs.get(r).label()))
                .append("</h2>\n<table class=\"methods\"><tr>");
        MethodTable.COLUMNS.forEach(c -> page.append("<th>").append(escape(c)).append("</th>"));
        page.append("</tr>\n");
        for (List<String> cells : MethodTable.rows(methods)) {
            page.append("<tr>");
            for (int c = 0; c < cells.size(); c++) {
                page.append(c == 0 || c == 2 ? "<td>" : "<td class=\"n\">").append(escape(cells.get(c)))
                        .append("</td>");
            }
            page.append("</tr>\n");
        }
        page.append("</table>\n");
    }

    private static String swatch(int run) {
        return "<span class=\"swatch\" style=\"background:" + COLORS[run % COLORS.length] + "\"></span>";
    }

    private static String anchor(int row) {
        return "thread-" + row;
    }

    /** Four significant digits, as JSON: what a plot can show; null for a window without a value. */
    private static String number(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "null" : String.format(Locale.ROOT, "%.4g", value);
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
                default -> out.append(Json.isLoneSurrogate(text, i) ? '\ufffd' : c);
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
        Properties pom = new Properties();
        try (InputStream in = resourceStream("META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            pom.load(in);
        }
        return UPLOT + pom.getProperty("version") + "/" + file;
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
