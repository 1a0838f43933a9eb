package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.JsonReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live view of a run on the simulated PMU says so, as the agent's notice; its recording says so in every format
 * report writes: the pmu field of its JSON records,
 * the pmu column of its CSV, a line under its table and a banner on its HTML page.
 */
class ReportSimulatedPmuTest {
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path dir;

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
