package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.jvm.AgentJar;
import io.perfpin.report.JsonReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live view of a run on the simulated PMU says so, as the agent's notice; its recording says so in every format
 * report writes: the pmu field of its JSON records,
 * the pmu column of its CSV, a line under its table and a banner on its HTML page. The views read the agent's stats
 * file in a JVM without the property, and still label their records: {@code top --format json}'s pmu field, {@code run
 * --format csv}'s pmu column, and the heading of each frame. Events multiplexed on the model's 4 counters show their
 * coverage in a view's table and in the report's JSON, CSV, table and HTML page, which plots a miss rate. A
 * {@code @Counted} method's hardware counts say so likewise.
 */
class ReportSimulatedPmuTest {
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path dir;

    @Test
    void theViewsLabelTheirRecordsAndHeadingsFromTheAgentsStatsFile() throws Exception {
        String agent =
                "-javaagent:" + AgentJar.forThisUser() + "=threads=worker-.*;events=ipc,task-clock;interval=100ms";
        try (ChildJvm service = ChildJvm.startWith(
                List.of(agent, "-Dperfpin.simulated-pmu=skylake"), "io.perfpin.apps.Service", "1", "120")) {
            try {
                service.await(Pattern.compile("ready"));
                String pid = Long.toString(service.pid());
                CliRun top = CliRun.capture(() ->
                        Perfpin.run("top", pid, "--format", "json", "--interval", "100ms", "--duration", "500ms"));
                assertEquals(ExitCode.OK, top.code, top.err);
                List<Map<?, ?>> records = top.out
                        .lines()
                        .<Map<?, ?>>map(l -> (Map<?, ?>) JsonReader.parse(l))
                        .filter(r -> "worker-0".equals(r.get("name")))
                        .toList();
                assertEquals(
                        Set.of("sample", "thread"),
                        records.stream().map(r -> r.get("type")).collect(Collectors.toSet()),
                        top.out);
                for (Map<?, ?> r : records) {
                    assertEquals("simulated skylake", r.get("pmu"), "every record: " + r);
                }

                CliRun table =
                        CliRun.capture(() -> Perfpin.run("top", pid, "--interval", "100ms", "--duration", "300ms"));
                assertEquals(ExitCode.OK, table.code, table.err);
                assertTrue(
                        Pattern.compile("(?s).*--- [0-9:.]+  perfpin top  pid " + pid + " \\(simulated skylake PMU\\)"
                                        + "  live threads: .*")
                                .matcher(table.out)
                                .matches(),
                        "the frame's heading, the one a redrawn screen shows too:\n" + table.out);
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }

        CliRun csv = CliRun.capture(() -> Perfpin.run(
                "run",
                "--threads",
                "main",
                "--events",
                "ipc,task-clock",
                "--interval",
                "100ms",
                "--format",
                "csv",
                "--",
                JAVA,
                "-Dperfpin.simulated-pmu=skylake",
                "-cp",
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                "io.perfpin.apps.MatrixMultiply"));
        assertEquals(0, csv.code, csv.out + csv.err);
        List<String> header =
                Arrays.asList(csv.out.lines().findFirst().orElseThrow().split(","));
        List<String[]> rows = csv.out
                .lines()
                .filter(l -> l.startsWith("main,"))
                .map(l -> l.split(",", -1))
                .toList();
        assertEquals(
                Set.of("sample", "thread"),
                rows.stream().map(r -> r[header.indexOf("type")]).collect(Collectors.toSet()),
                csv.out);
        for (String[] row : rows) {
            assertEquals("simulated skylake", row[header.indexOf("pmu")], "every row: " + String.join(",", row));
        }
    }

    /**
     * More general-purpose events than the model's 4 counters: the kernel's groups rotate, each counted a share of the
     * time, and every output shows that share beside the count it scaled.
     */
    @Test
    void multiplexedEventsShowTheirCoverageInTheViewAndInEveryFormatOfTheReport() throws Exception {
        Path record = dir.resolve("multiplexed.jsonl");
        CliRun run = runMatrixMultiply(
                record,
                List.of("--events", "ipc,cache,tlb,branch,task-clock", "--columns", "ipc,cache-mpki,cache-misses"),
                List.of("-Dperfpin.simulated-pmu.mpki=4"));
        assertEquals(0, run.code, run.out + run.err);
        assertTrue(
                run.out.lines().anyMatch(l -> l.matches("thread +tid +.* ipc +cache-mpki +cache-misses")),
                "the columns asked for:\n" + run.out);
        assertTrue(
                run.out
                        .lines()
                        .anyMatch(l -> l.matches("main +\\d+ .* [0-9.]+ +[34]\\.\\d{3} +[0-9,]+ \\(\\d+\\.\\d%\\)")),
                "ipc, the simulated MPKI and the multiplexed count with its coverage:\n" + run.out);

        CliRun json = CliRun.capture(() -> Perfpin.run("report", record.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, json.code, json.err);
        Map<?, ?> main = json.out
                .lines()
                .map(l -> (Map<?, ?>) JsonReader.parse(l))
                .filter(r -> "main".equals(r.get("name")) && "thread".equals(r.get("type")))
                .findFirst()
                .orElseThrow();
        Map<?, ?> coverage = (Map<?, ?>) main.get("coverage");
        double cacheMisses = ((Number) coverage.get("cache-misses")).doubleValue();
        assertTrue(cacheMisses > 0 && cacheMisses < 1, "multiplexed: " + coverage);
        assertEquals(1.0, ((Number) coverage.get("task-clock")).doubleValue(), "software: never rotated off");

        CliRun csv = CliRun.capture(() -> Perfpin.run("report", record.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, csv.code, csv.err);
        // Its unsupported field, why DTLB_LOAD_MISSES.WALK_ACTIVE was not counted, is quoted: it holds commas.
        List<String> header =
                OutputContractTest.fields(csv.out.lines().findFirst().orElseThrow());
        List<String> row = csv.out
                .lines()
                .map(OutputContractTest::fields)
                .filter(r ->
                        r.get(0).equals("main") && r.get(header.indexOf("type")).equals("thread"))
                .findFirst()
                .orElseThrow();
        double csvCoverage = Double.parseDouble(row.get(header.indexOf("cache-misses:coverage")));
        assertEquals(cacheMisses, csvCoverage, 1e-9, csv.out);

        CliRun table =
                CliRun.capture(() -> Perfpin.run("report", record.toString(), "--columns", "cache-misses,cache-mpki"));
        assertEquals(ExitCode.OK, table.code, table.err);
        String percent = String.format(Locale.ROOT, " (%.1f%%)", cacheMisses * 100);
        assertTrue(
                table.out
                        .lines()
                        .anyMatch(l -> l.matches("main +\\d+ .* [0-9,]+" + Pattern.quote(percent) + " +[34]\\.\\d{3}")),
                "the coverage beside the count: " + percent + "\n" + table.out);

        Path page = dir.resolve("multiplexed.html");
        CliRun html = CliRun.capture(
                () -> Perfpin.run("report", record.toString(), "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, html.code, html.err);
        String shown = Files.readString(page);
        List<Map<?, ?>> charts = HtmlReportTest.charts(shown);
        assertTrue(
                charts.stream().anyMatch(c -> "cache-misses per second".equals(c.get("title"))),
                "the miss rate plotted: " + charts);
        // Each MPKI is the property's 4 however the groups rotate, scaling giving back whole counts: plotted where a
        // window's estimates move it (their groups rotate apart while the thread's pace changes), listed with its one
        // value where they do not. Which of the two a run gives depends on the host's load, so either is accepted.
        List<String> mpkis = List.of("cache-mpki", "L1d-mpki", "LLC-mpki", "dTLB-mpki", "iTLB-mpki", "branch-mpki");
        for (String mpki : mpkis) {
            Map<?, ?> chart = charts.stream()
                    .filter(c -> mpki.equals(c.get("title")))
                    .findFirst()
                    .orElse(null);
            if (chart == null) {
                assertTrue(
                        shown.matches("(?s).*<p class=\"flat\">Not plotted, one value throughout: [^<]*" + mpki
                                + " 4\\.00[,.].*"),
                        mpki + " listed at 4.00");
                continue;
            }
            double[] points = ((List<?>) ((Map<?, ?>) ((List<?>) chart.get("lines")).get(0)).get("y"))
                    .stream()
                            .filter(Objects::nonNull)
                            .mapToDouble(v -> ((Number) v).doubleValue())
                            .sorted()
                            .toArray();
            assertEquals(4.0, points[points.length / 2], 0.05, mpki + "'s median window: " + Arrays.toString(points));
        }
        assertTrue(shown.contains(percent), "the totals show the coverage too: " + percent);
        assertTrue(
                HtmlReportTest.chromium(page, "--dump-dom").contains("data-plots=\"drawn " + charts.size() + "\""),
                "every plot drawn, no error");
    }

    @Test
    void everyFormatSaysTheCountsAreSimulated() throws Exception {
        Path record = dir.resolve("simulated.jsonl");
        CliRun run = runMatrixMultiply(record, List.of("--events", "ipc,task-clock"), List.of());
        assertEquals(0, run.code, run.out + run.err);
        String said = run.out + run.err;
        assertEquals(
                1,
                said.split("simulated PMU skylake \\(-Dperfpin.simulated-pmu\\)", -1).length - 1,
                "run's view says once that the agent's PMU is simulated:\n" + said);
        assertTrue(
                run.out.lines().anyMatch(l -> l.matches("thread +tid +.* ipc( .*)?")), "the ipc column:\n" + run.out);

        CliRun json = CliRun.capture(() -> Perfpin.run("report", record.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, json.code, json.err);
        Map<?, ?> main = json.out
                .lines()
                .map(l -> (Map<?, ?>) JsonReader.parse(l))
                .filter(r -> "main".equals(r.get("name")))
                .findFirst()
                .orElseThrow();
        assertEquals("simulated skylake", main.get("pmu"), json.out);
        assertTrue(((Number) ((Map<?, ?>) main.get("counters")).get("cycles")).longValue() > 0, json.out);

        CliRun csv = CliRun.capture(() -> Perfpin.run("report", record.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, csv.code, csv.err);
        List<String> header =
                Arrays.asList(csv.out.lines().findFirst().orElseThrow().split(","));
        String row =
                csv.out.lines().filter(l -> l.startsWith("main,")).findFirst().orElseThrow();
        assertEquals("simulated skylake", row.split(",", -1)[header.indexOf("pmu")], csv.out);

        CliRun table = CliRun.capture(() -> Perfpin.run("report", record.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertTrue(
                table.out.contains("\nhardware counts from a simulated skylake PMU, made from each thread's"
                        + " task-clock for tests: not a measurement\n"),
                table.out);

        Path page = dir.resolve("simulated.html");
        CliRun html = CliRun.capture(
                () -> Perfpin.run("report", record.toString(), "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, html.code, html.err);
        String shown = Files.readString(page);
        assertTrue(
                shown.contains("<p class=\"simulated\"><strong>Simulated PMU</strong>: the hardware counts on this"
                        + " page come from a simulated skylake PMU"),
                "the page's banner");
        List<Map<?, ?>> charts = HtmlReportTest.charts(shown);
        assertTrue(charts.stream().anyMatch(c -> "cycles per second".equals(c.get("title"))), "cycles: " + charts);
        // The simulated IPC is the thread's own throughout: listed with its one value; or plotted, where a window too
        // short (a thread barely run, on a loaded machine) rounds its instructions, but within 1% of one value.
        List<Double> ipcs = new ArrayList<>();
        charts.stream()
                .filter(c -> String.valueOf(c.get("title")).startsWith("ipc"))
                .forEach(c -> ((List<?>) c.get("lines"))
                        .forEach(l -> ((List<?>) ((Map<?, ?>) l).get("y"))
                                .stream().filter(Objects::nonNull).forEach(v -> ipcs.add(((Number) v).doubleValue()))));
        if (ipcs.isEmpty()) {
            assertTrue(shown.matches("(?s).*<p class=\"flat\">Not plotted, one value throughout: [^<]*ipc.*"), "ipc");
        } else {
            double low = Collections.min(ipcs);
            assertTrue(Collections.max(ipcs) <= low * 1.01, "ipc within 1% of one value: " + ipcs);
        }
        assertTrue(
                HtmlReportTest.chromium(page, "--dump-dom").contains("data-plots=\"drawn " + charts.size() + "\""),
                "every plot drawn, no error");
    }

    /**
     * A recording of @Counted methods alone (--threads matching no thread), their hardware counts made by the simulated
     * PMU: report shows it, exit 0, and says the PMU in each format: the pmu field of the JSON method records, the pmu
     * column of the methods' CSV, the line under the table, the page's banner.
     */
    @Test
    void countedMethodsAloneOnASimulatedPmuAreReportedAndSaySo() throws Exception {
        Path record = dir.resolve("methods.jsonl");
        List<String> args = new ArrayList<>(List.of("run", "--threads", "none-is-named-so", "--events", "task-clock"));
        args.addAll(List.of("--record", record.toString(), "--", JAVA, "-Dperfpin.simulated-pmu=skylake", "-cp"));
        args.addAll(List.of(
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                "io.perfpin.apps.MatrixMultiply",
                "--annotated",
                "--n",
                "100"));
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
        assertEquals(0, run.code, run.out + run.err);

        CliRun json = CliRun.capture(() -> Perfpin.run("report", record.toString(), "--format", "json"));
        assertEquals(ExitCode.OK, json.code, json.err);
        List<Map<?, ?>> methods = json.out
                .lines()
                .<Map<?, ?>>map(l -> (Map<?, ?>) JsonReader.parse(l))
                .filter(r -> "method".equals(r.get("type")))
                .toList();
        assertEquals(2, methods.size(), "ijk and ikj: " + json.out);
        for (Map<?, ?> method : methods) {
            assertEquals("simulated skylake", method.get("pmu"), json.out);
            assertTrue(((Number) ((Map<?, ?>) method.get("counters")).get("cache-misses")).longValue() > 0, json.out);
        }

        CliRun csv = CliRun.capture(() -> Perfpin.run("report", record.toString(), "--format", "csv"));
        assertEquals(ExitCode.OK, csv.code, csv.err);
        List<List<String>> rows = csv.out
                .lines()
                .filter(l -> !l.isEmpty())
                .map(OutputContractTest::fields)
                .toList();
        assertEquals(MethodTable.CSV_COLUMNS, rows.get(0), csv.out);
        assertTrue(rows.size() > 2, csv.out);
        rows.subList(1, rows.size()).forEach(row -> assertEquals("simulated skylake", row.get(7), csv.out));

        CliRun table = CliRun.capture(() -> Perfpin.run("report", record.toString()));
        assertEquals(ExitCode.OK, table.code, table.err);
        assertTrue(table.out.contains("\n" + ReportOutput.simulatedPmu("simulated skylake") + "\n"), table.out);

        Path page = dir.resolve("methods.html");
        CliRun html = CliRun.capture(
                () -> Perfpin.run("report", record.toString(), "--format", "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, html.code, html.err);
        assertTrue(
                Files.readString(page)
                        .contains("<p class=\"simulated\"><strong>Simulated PMU</strong>: the hardware counts on"
                                + " this page come from a simulated skylake PMU"),
                "the page's banner");
    }

    /**
     * perfpin run of MatrixMultiply's main thread on the simulated PMU, recorded to {@code record}, with
     * {@code options} and the application's {@code properties}. Samples every 50 ms: the page plots a series from two
     * samples on, and the run lasts a second.
     */
    private static CliRun runMatrixMultiply(Path record, List<String> options, List<String> properties) {
        List<String> args = new ArrayList<>(List.of("run", "--threads", "main", "--interval", "50ms"));
        args.addAll(options);
        args.addAll(List.of("--record", record.toString(), "--", JAVA, "-Dperfpin.simulated-pmu=skylake"));
        args.addAll(properties);
        args.addAll(List.of(
                "-cp",
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                "io.perfpin.apps.MatrixMultiply"));
        return CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
    }
}
