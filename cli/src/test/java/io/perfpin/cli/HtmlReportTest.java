package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.apps.Programs;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.report.Json;
import io.perfpin.report.JsonReader;
import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.RunRecord;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code perfpin report --format html} of the demo's ping-pong, recorded by {@code perfpin run} unpinned and then
 * pinned as the demo pins it, compared side by side, and of 600 churned threads, rendered by headless Chromium (the
 * Debian package, which .ci/run installs): the page draws every plot without a script error, plots only what
 * moves, sums groups of threads, names each recording in each legend, and fetches nothing.
 */
class HtmlReportTest {
    /** Where the screenshot goes: docs/outputs.md shows the one in docs/. */
    private static final Path SCREENSHOT = Paths.get("target", "html-report.png");

    private static final long BROWSER_SECONDS = 60;
    private static final int CHURNED = 600;
    private static final List<String> SCHED =
            List.of("task-clock", "context-switches", "cpu-migrations", "page-faults", "minor-faults", "major-faults");

    @TempDir
    static Path dir;

    static Path unpinned;
    static Path pinned;
    static Path churn;

    @BeforeAll
    static void recordTheDemosPingPongAndAChurn() {
        CpuSet allowed = CpuTopology.live().allowed();
        int first = allowed.first();
        int second = allowed.size() > 1 ? allowed.next(first + 1) : first;
        String[] pingPong = {"io.perfpin.apps.PingPong", "--round-trips", "300000"};
        unpinned = record("unpinned.jsonl", List.of("--threads", "ping|pong", "--interval", "100ms"), pingPong);
        pinned = record(
                "pinned.jsonl",
                List.of(
                        "--threads",
                        "ping|pong",
                        "--interval",
                        "100ms",
                        "--pin",
                        "ping@" + first,
                        "--pin",
                        "pong@" + second),
                pingPong);
        // 600 threads, four at a time, each touching 256 fresh pages: about a second, so some twenty ticks of 50 ms.
        churn = record(
                "churn.jsonl",
                List.of("--threads", "churn-.*", "--interval", "50ms"),
                "io.perfpin.apps.ThreadChurner",
                "--threads",
                Integer.toString(CHURNED),
                "--at-once",
                "4",
                "--pages",
                "256");
    }

    /** {@code perfpin run} of a test app with {@code options}, counting sched, recorded in {@code name}. */
    private static Path record(String name, List<String> options, String... app) {
        Path file = dir.resolve(name);
        List<String> args = new ArrayList<>(List.of("run", "--events", "sched", "--record", file.toString()));
        args.addAll(options);
        args.addAll(List.of(
                "--",
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path"))));
        args.addAll(List.of(app));
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
        assertEquals(ExitCode.OK, run.code, run.err);
        return file;
    }

    @Test
    void chromiumDrawsEveryPlotOfTwoRecordingsSideBySideWithoutAScriptError() throws Exception {
        Path page = dir.resolve("before-after.html");
        CliRun report = CliRun.capture(() -> Perfpin.run(
                "report", unpinned.toString(), pinned.toString(), "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);
        int plots = count(html, "<div class=\"plot\" id=");
        List<Map<?, ?>> charts = charts(html);
        assertEquals(plots, charts.size(), "a chart's data for each plot");
        assertTrue(plots >= 2, "ping's and pong's task-clock at least: " + plots);
        noFlatPlot(charts);
        for (Map<?, ?> chart : charts) {
            assertEquals(
                    List.of("unpinned.jsonl", "pinned.jsonl"),
                    lines(chart).stream()
                            .map(l -> l.get("label"))
                            .map(label -> ((String) label).split(" ")[0])
                            .distinct()
                            .toList(),
                    "each recording named in the legend of " + chart.get("title"));
        }
        for (String thread : List.of("ping", "pong")) {
            String section = section(html, "<h2><bdi>" + thread + "</bdi></h2>");
            List<String> plotted = new ArrayList<>();
            for (Map<?, ?> chart : charts) {
                if (section.contains("id=\"" + chart.get("id") + "\"")) {
                    plotted.add(((String) chart.get("title")).split("[ :,]")[0]);
                    lines(chart).forEach(l -> plotted.add(((String) l.get("label")).replaceAll(".* ", "")));
                }
            }
            for (String event : SCHED) {
                assertTrue(
                        plotted.contains(event)
                                ^ flat(section).contains(event + " ")
                                ^ flat(section).contains(event + ":"),
                        thread + "'s " + event + ": plotted or listed once");
            }
        }
        assertTrue(
                html.contains("unpinned.jsonl") && html.contains("pinned.jsonl") && html.contains("(perfpin)"),
                "both recordings named, the pin shown");
        assertTrue(html.contains("<th>kernel</th>") && html.contains("<th>cpu</th>"), "the machine");
        assertFalse(
                Pattern.compile("(src|href)=\"[a-z]+:", Pattern.CASE_INSENSITIVE)
                        .matcher(html)
                        .find(),
                "nothing fetched: no src or href with a scheme");
        assertTrue(html.contains("Content-Security-Policy\" content=\"default-src 'none'"), "and the browser is told");
        String head = html.substring(0, html.indexOf("</head>"));
        String license = new String(
                HtmlReport.class
                        .getClassLoader()
                        .getResourceAsStream(
                                "META-INF/resources/webjars/uplot/" + HtmlReport.uplotVersion() + "/LICENSE")
                        .readAllBytes(),
                StandardCharsets.UTF_8);
        String notice = head.substring(head.indexOf("<!--"), head.indexOf("-->"));
        assertTrue(
                notice.contains(license.strip()) && license.contains("Permission is hereby granted"),
                "uPlot's copyright and permission notice, whole, go with the copy of it the page carries:\n" + head);

        String dom = chromium(page, "--dump-dom");
        Matcher drawn = Pattern.compile("data-plots=\"([^\"]*)\"").matcher(dom);
        assertTrue(drawn.find(), "the page's marker");
        assertEquals("drawn " + plots, drawn.group(1), "every plot drawn, no script error");
        assertEquals(plots, count(dom, "<canvas"), "a canvas per plot");
        int lines = charts.stream().mapToInt(c -> lines(c).size()).sum();
        assertEquals(lines, count(dom, "class=\"u-value\">mean "), "off the plot, each line's legend its mean");
        assertFalse(dom.contains(">--<"), "no legend without a value");

        Files.deleteIfExists(SCREENSHOT);
        Files.createDirectories(SCREENSHOT.getParent());
        chromium(page, "--screenshot=" + SCREENSHOT.toAbsolutePath());
        byte[] png = Files.readAllBytes(SCREENSHOT);
        assertTrue(png.length > 20_000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a screenshot");
    }

    @Test
    void namesFromARecordingCannotEndTheirElementOrRunAScript() throws Exception {
        String hostile = "</script><img src=x onerror=alert(1)>";
        Path renamed = dir.resolve("renamed.jsonl");
        Files.writeString(
                renamed,
                Files.readString(pinned)
                        .replace("\"name\":\"ping\"", "\"name\":\"" + hostile.replace("\"", "\\\"") + "\""));
        Path page = dir.resolve("renamed.html");
        // --threads: the recording's own threads= (ping|pong) would not select the name written into it here
        CliRun report = CliRun.capture(() -> Perfpin.run(
                "report", renamed.toString(), "--threads", ".*", "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);
        assertFalse(html.contains("<img"), "escaped wherever it goes");
        assertTrue(html.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), "shown as text");
        String dom = chromium(page, "--dump-dom");
        assertTrue(
                dom.contains("data-plots=\"drawn " + count(html, "<div class=\"plot\" id=") + "\""),
                "its plots drawn as any other's");
    }

    /**
     * Names shown as a terminal shows them: no raw control in the page, no bidi override reversing the page, and a name
     * of 64 Ki characters cut in its table and heading, whole in their titles, so that its counts stay in view.
     */
    @Test
    void hostileNamesAreShownVisiblyIsolatedAndCut() throws Exception {
        String huge = "huge-" + "x".repeat(65_536 - 5);
        String hostile = "nul\0 esc\u001b[31m rtl\u202eover\nride\u2028 back\\slash half\ud800";
        Path renamed = dir.resolve("hostile.jsonl");
        Files.writeString(
                renamed,
                Files.readString(pinned)
                        .replace("\"name\":\"ping\"", "\"name\":" + Json.quote(huge))
                        .replace("\"name\":\"pong\"", "\"name\":" + Json.quote(hostile)));
        Path page = dir.resolve("hostile.html");
        CliRun report = CliRun.capture(() -> Perfpin.run(
                "report", renamed.toString(), "--threads", "(?s).*", "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);
        assertTrue(
                html.chars()
                        .noneMatch(c -> c < 0x20 && c != '\n' || c >= 0x7f && c <= 0x9f || c == 0x202e || c == 0x2028),
                "no raw control, override or line separator in the page");
        String shown = "<bdi>" + HtmlReport.escape(TerminalText.escape(hostile)) + "</bdi>";
        assertEquals(
                "nul\\x00 esc\\x1b[31m rtl\\u202eover\\nride\\u2028 back\\slash half\\ud800",
                TerminalText.escape(hostile));
        assertEquals(2, count(html, shown), "in its table row and its heading:\n" + shown);
        String title = "<bdi title=\"" + huge + "\">";
        String table = title + TerminalText.fit(huge, HtmlReport.TABLE_NAME_COLUMNS) + "</bdi>";
        String heading = title + TerminalText.fit(huge, HtmlReport.HEADING_NAME_COLUMNS) + "</bdi>";
        assertEquals(1, count(html, table), "cut in the table, whole in its title");
        assertEquals(1, count(html, heading), "cut in its heading, whole in its title");
        assertFalse(html.contains(">" + huge), "nowhere whole but in a title");
        String dom = chromium(page, "--dump-dom");
        assertTrue(
                dom.contains("data-plots=\"drawn " + count(html, "<div class=\"plot\" id=") + "\""),
                "its plots drawn as any other's");
    }

    /**
     * 600 churned threads: one group row whose totals are the sums of the threads' final records, then the total
     * row; the group plotted over time; no flat plot; the busiest ten threads in full, the others folded.
     */
    @Test
    void sixHundredChurnedThreadsShowAsAGroupWithItsTotalsAndPlots() throws Exception {
        Recording recording = Recording.read(churn);
        List<ThreadRecord> threads = recording.threads();
        assertEquals(CHURNED, threads.size(), "every churned thread recorded");
        assertTrue(threads.stream().allMatch(ThreadRecord::isFinal), "each with its final record");
        Path page = dir.resolve("churn.html");
        CliRun report = CliRun.capture(
                () -> Perfpin.run("report", churn.toString(), "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);

        List<String> sums = new ArrayList<>();
        for (String event : SCHED) {
            long sum = threads.stream()
                    .mapToLong(t -> t.report().counters().get(event))
                    .sum();
            sums.add(ReportTable.formatCount(event, sum, null));
        }
        assertEquals(
                List.of(Integer.toString(CHURNED), String.join("|", sums)),
                cells(html, "<tr><td><a href=\"#group-0\"><bdi>churn</bdi></a></td>"),
                "the group's row: its threads' sums");
        assertEquals(
                List.of(Integer.toString(CHURNED), String.join("|", sums)),
                cells(html, "<tr class=\"total\"><td><bdi>all threads</bdi></td>"),
                "the total row");
        assertTrue(html.contains(CHURNED - HtmlReport.PLOTTED + " more threads"), "the others folded");
        assertEquals(HtmlReport.PLOTTED, count(html, "<section class=\"thread\""), "the busiest threads after");

        String group = section(html, "<h2>group <bdi>churn</bdi></h2>");
        assertTrue(group.contains(CHURNED + " threads"));
        assertTrue(count(group, "<div class=\"plot\" id=") >= 2, "the group plotted over time: " + flat(group));
        List<Map<?, ?>> charts = charts(html);
        noFlatPlot(charts);
        String dom = chromium(page, "--dump-dom");
        assertTrue(dom.contains("data-plots=\"drawn " + charts.size() + "\""), "every plot drawn, no script error");
    }

    /** The run's facts (the application's command line, the agent's options) show a URL's credentials masked. */
    @Test
    void aUrlInTheRunsFactsShowsNoCredentials() throws Exception {
        Path withUrl = dir.resolve("with-url.jsonl");
        String application = "io.perfpin.apps.PingPong";
        List<String> lines = new ArrayList<>();
        int runRecords = 0;
        for (String line : Files.readAllLines(pinned)) {
            Map<?, ?> record = (Map<?, ?>) JsonReader.parse(line);
            if (RunRecord.TYPE.equals(record.get("type"))) {
                RunRecord run = RunRecord.fromJson(record);
                String command = run.run().get("command");
                assertTrue(command.startsWith(application), "the run record names the command: " + command);
                Map<String, String> facts = new LinkedHashMap<>(run.run());
                facts.put(
                        "command",
                        application + " --db postgres://app:s3cret@db:5432/app"
                                + command.substring(application.length()));
                line = new RunRecord(run.epochMillis(), run.pid(), run.machine(), facts, run.events()).toJson();
                runRecords++;
            }
            lines.add(line);
        }
        assertEquals(1, runRecords, "one run record in " + pinned);
        Files.write(withUrl, lines);
        Path page = dir.resolve("with-url.html");
        CliRun report = CliRun.capture(
                () -> Perfpin.run("report", withUrl.toString(), "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);
        assertTrue(html.contains("--db postgres://***@db:5432/app"), "the command, its URL masked");
        assertFalse(html.contains("s3cret"));
    }

    /**
     * A run's family: perfpin run of JMH with two forks, its workers only, so that JMH's own JVM records none. The
     * page shows that JVM under its heading, saying so, then each fork under its own heading with its two
     * workers in full; every anchor is the page's only one of its name, and every plot is drawn.
     */
    @Test
    void eachJvmOfARunsFamilyHasItsThreadsUnderItsOwnHeading() throws Exception {
        Path record = dir.resolve("jmh.jsonl");
        CliRun run = RunForkingJmhTest.runForkingJmh(record);
        assertEquals(0, run.code, "JMH's exit code:\n" + run.out + run.err);
        List<Path> family = RecordingFile.family(record);
        assertEquals(3, family.size(), "JMH's JVM's recording and one per fork: " + family);
        Path page = dir.resolve("jmh.html");
        CliRun report = CliRun.capture(
                () -> Perfpin.run("report", record.toString(), "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);

        List<Integer> headings = new ArrayList<>();
        for (int i = 0; i < family.size(); i++) {
            long pid = Recording.read(family.get(i)).jvm().orElseThrow().pid();
            String heading = "<h2 class=\"jvm\" id=\"jvm-" + i + "\">"
                    + HtmlReport.escape("JVM " + pid
                            + (i == 0 ? ", recorded in " : ", started with the same agent options; recorded in ")
                            + family.get(i)
                            + ":")
                    + "</h2>";
            int at = html.indexOf(heading);
            assertTrue(at >= 0 && (i == 0 || at > headings.get(i - 1)), "in order: " + heading);
            headings.add(at);
        }
        headings.add(html.indexOf("<script"));
        String jmh = html.substring(headings.get(0), headings.get(1));
        assertTrue(jmh.contains("<p class=\"nothing\">(it holds no thread records)</p>"), "JMH's JVM: " + jmh);
        assertEquals(0, count(jmh, "<section class=\"thread\""), jmh);
        for (int i = 1; i < family.size(); i++) {
            String fork = html.substring(headings.get(i), headings.get(i + 1));
            assertEquals(2, count(fork, "<section class=\"thread\""), "the fork's workers in full: " + fork);
            for (String worker : List.of("1", "2")) {
                assertTrue(
                        fork.contains(".JMHSample_22_FalseSharing.baseline-jmh-worker-" + worker + "</bdi></h2>"),
                        "fork " + i + "'s worker " + worker);
            }
        }
        List<String> ids = new ArrayList<>();
        Matcher id = Pattern.compile(" id=\"([^\"]+)\"").matcher(html);
        while (id.find()) {
            ids.add(id.group(1));
        }
        assertEquals(ids.size(), new HashSet<>(ids).size(), "no anchor twice: " + ids);
        Matcher link = Pattern.compile("href=\"#([^\"]+)\"").matcher(html);
        while (link.find()) {
            assertTrue(ids.contains(link.group(1)), "a link to an anchor of the page: " + link.group(1));
        }
        String dom = chromium(page, "--dump-dom");
        assertTrue(dom.contains("data-plots=\"drawn " + charts(html).size() + "\""), "every plot drawn, no error");
    }

    /** Without --format html, several recordings are not compared but follow one another, each under its heading. */
    @Test
    void severalRecordingsWithoutHtmlFollowOneAnother() {
        CliRun report = CliRun.capture(() -> Perfpin.run("report", unpinned.toString(), pinned.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        int first = report.out.indexOf(" recorded in " + unpinned + ":\n");
        int second = report.out.indexOf(" recorded in " + pinned + ":\n");
        assertTrue(first >= 0 && second > first, report.out);
    }

    /** Headless Chromium on the page, offline; its standard output. */
    static String chromium(Path page, String what) throws IOException, InterruptedException {
        String browser = Programs.onPath("chromium")
                .map(Path::toString)
                .orElseThrow(() -> new AssertionError(
                        "headless Chromium on the PATH renders the page: apt-get install chromium (.ci/run does)"));
        Process process = new ProcessBuilder(
                        browser,
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--hide-scrollbars",
                        "--window-size=1400,1800",
                        "--virtual-time-budget=5000",
                        what,
                        page.toUri().toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(BROWSER_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("chromium did not end within " + BROWSER_SECONDS + " s");
        }
        assertEquals(0, process.exitValue(), "chromium " + what);
        return new String(out, StandardCharsets.UTF_8);
    }

    /** The charts of a page, from the data it draws them with. */
    static List<Map<?, ?>> charts(String html) {
        String start = "<script type=\"application/json\" id=\"perfpin-data\">";
        int from = html.indexOf(start) + start.length();
        Map<?, ?> data = (Map<?, ?>) JsonReader.parse(html.substring(from, html.indexOf("</script>", from)));
        List<Map<?, ?>> charts = new ArrayList<>();
        ((List<?>) data.get("charts")).forEach(c -> charts.add((Map<?, ?>) c));
        return charts;
    }

    private static List<Map<?, ?>> lines(Map<?, ?> chart) {
        List<Map<?, ?>> lines = new ArrayList<>();
        ((List<?>) chart.get("lines")).forEach(l -> lines.add((Map<?, ?>) l));
        return lines;
    }

    /** Each chart has at least two values: a series with one throughout is listed, not plotted. */
    private static void noFlatPlot(List<Map<?, ?>> charts) {
        for (Map<?, ?> chart : charts) {
            Set<Object> values = new HashSet<>();
            lines(chart)
                    .forEach(l -> ((List<?>) l.get("y"))
                            .stream().filter(Objects::nonNull).forEach(values::add));
            assertTrue(values.size() >= 2, "a flat plot: " + chart.get("title") + " " + values);
        }
    }

    /** The section that begins with {@code heading}, up to its end. */
    private static String section(String html, String heading) {
        int from = html.indexOf(heading);
        assertTrue(from >= 0, heading);
        return html.substring(from, html.indexOf("</section>", from));
    }

    /** What a section lists as not plotted. */
    private static String flat(String section) {
        int from = section.indexOf("<p class=\"flat\">");
        return from < 0 ? "" : section.substring(from, section.indexOf("</p>", from));
    }

    /** A table row's second cell, then its numbers joined by {@code |}. */
    private static List<String> cells(String html, String rowStart) {
        int from = html.indexOf(rowStart);
        assertTrue(from >= 0, rowStart);
        String row = html.substring(from + rowStart.length(), html.indexOf("</tr>", from));
        Matcher second = Pattern.compile("^<td>([^<]*)</td>").matcher(row);
        assertTrue(second.find(), row);
        List<String> numbers = new ArrayList<>();
        Matcher n = Pattern.compile("<td class=\"n\">([^<]*)</td>").matcher(row);
        while (n.find()) {
            numbers.add(n.group(1));
        }
        return List.of(second.group(1), String.join("|", numbers));
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
