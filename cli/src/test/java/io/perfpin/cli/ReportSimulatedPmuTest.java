package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.jvm.AgentJar;
import io.perfpin.report.JsonReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
 * --format csv}'s pmu column, and the heading of each frame.
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

    @Test
    void everyFormatSaysTheCountsAreSimulated() throws Exception {
        Path record = dir.resolve("simulated.jsonl");
        CliRun run = CliRun.capture(() -> Perfpin.run(
                "run",
                "--threads",
                "main",
                "--events",
                "ipc,task-clock",
                // Samples every 50 ms: the page plots a series from two samples on, and the run lasts a second.
                "--interval",
                "50ms",
                "--record",
                record.toString(),
                "--",
                JAVA,
                "-Dperfpin.simulated-pmu=skylake",
                "-cp",
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                "io.perfpin.apps.MatrixMultiply"));
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
        // The simulated IPC is the thread's own throughout: listed with its one value, not plotted.
        assertTrue(shown.matches("(?s).*<p class=\"flat\">Not plotted, one value throughout: [^<]*ipc.*"), "ipc");
        assertTrue(
                HtmlReportTest.chromium(page, "--dump-dom").contains("data-plots=\"drawn " + charts.size() + "\""),
                "every plot drawn, no error");
    }
}
