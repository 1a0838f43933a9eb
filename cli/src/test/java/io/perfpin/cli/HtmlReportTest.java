package io.perfpin.cli;

import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code perfpin report --format html} of the demo's ping-pong, recorded by {@code perfpin run} unpinned and then
 * pinned as the demo pins it, compared side by side, and rendered by headless Chromium (the Debian package, which
 * .ci/run installs): the page draws every plot without a script error, and fetches nothing.
 */
class HtmlReportTest {
    /** Where the screenshot goes: the README shows the one in docs/. */
    private static final Path SCREENSHOT = Paths.get("target", "html-report.png");
    private static final long BROWSER_SECONDS = 60;

    @TempDir
    static Path dir;
    static Path unpinned;
    static Path pinned;

    @BeforeAll
    static void recordTheDemosPingPong() {
        CpuSet allowed = CpuTopology.live().allowed();
        int first = allowed.first();
        int second = allowed.size() > 1 ? allowed.next(first + 1) : first;
        unpinned = record("unpinned.jsonl");
        pinned = record("pinned.jsonl", "--pin", "ping@" + first, "--pin", "pong@" + second);
    }

    private static Path record(String name, String... pins) {
        Path file = dir.resolve(name);
        List<String> args = new ArrayList<>(List.of("run", "--events", "sched", "--threads", "ping|pong",
                "--interval", "100ms", "--record", file.toString()));
        args.addAll(List.of(pins));
        args.addAll(List.of("--", Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")), "io.perfpin.apps.PingPong",
                "--round-trips", "300000"));
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
        assertEquals(ExitCode.OK, run.code, run.err);
        return file;
    }

    @Test
    void chromiumDrawsEveryPlotOfTwoRecordingsSideBySideWithoutAScriptError() throws Exception {
        Path page = dir.resolve("before-after.html");
        CliRun report = CliRun.capture(() -> Perfpin.run("report", unpinned.toString(), pinned.toString(), "--format",
                "html", "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);
        int plots = count(html, "<div class=\"plot\" id=");
        assertEquals(12, plots, "ping and pong, each with a plot of each of sched's six events");
        assertTrue(html.contains("unpinned.jsonl") && html.contains("pinned.jsonl") && html.contains("(perfpin)"),
                "both recordings named, the pin shown");
        assertTrue(html.contains("<th>kernel</th>") && html.contains("<th>cpu</th>"), "the machine");
        assertFalse(Pattern.compile("(src|href)=\"[a-z]+:", Pattern.CASE_INSENSITIVE).matcher(html).find(),
                "nothing fetched: no src or href with a scheme");
        assertTrue(html.contains("Content-Security-Policy\" content=\"default-src 'none'"), "and the browser is told");

        String dom = chromium(page, "--dump-dom");
        Matcher drawn = Pattern.compile("data-plots=\"([^\"]*)\"").matcher(dom);
        assertTrue(drawn.find(), "the page's marker");
        assertEquals("drawn " + plots, drawn.group(1), "every plot drawn, no script error");
        assertEquals(plots, count(dom, "<canvas"), "a canvas per plot");

        Files.deleteIfExists(SCREENSHOT);
        chromium(page, "--screenshot=" + SCREENSHOT.toAbsolutePath());
        byte[] png = Files.readAllBytes(SCREENSHOT);
        assertTrue(png.length > 20_000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a screenshot");
    }

    @Test
    void namesFromARecordingCannotEndTheirElementOrRunAScript() throws Exception {
        String hostile = "</script><img src=x onerror=alert(1)>";
        Path renamed = dir.resolve("renamed.jsonl");
        Files.writeString(renamed, Files.readString(pinned).replace("\"name\":\"ping\"",
                "\"name\":\"" + hostile.replace("\"", "\\\"") + "\""));
        Path page = dir.resolve("renamed.html");
        CliRun report = CliRun.capture(() -> Perfpin.run("report", renamed.toString(), "--format", "html",
                "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);
        assertFalse(html.contains("<img"), "escaped wherever it goes");
        assertTrue(html.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), "shown as text");
        String dom = chromium(page, "--dump-dom");
        assertTrue(dom.contains("data-plots=\"drawn 12\""), "its plots drawn as any other's");
    }

    /** The run's facts (the application's command line, the agent's options) show a URL's credentials masked. */
    @Test
    void aUrlInTheRunsFactsShowsNoCredentials() throws Exception {
        Path withUrl = dir.resolve("with-url.jsonl");
        String recording = Files.readString(pinned);
        assertTrue(recording.contains("\"command\":\"io.perfpin.apps.PingPong"), "the run record names the command");
        Files.writeString(withUrl, recording.replace("\"command\":\"io.perfpin.apps.PingPong",
                "\"command\":\"io.perfpin.apps.PingPong --db postgres://app:s3cret@db:5432/app"));
        Path page = dir.resolve("with-url.html");
        CliRun report = CliRun.capture(() -> Perfpin.run("report", withUrl.toString(), "--format", "html",
                "--output", page.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        String html = Files.readString(page);
        assertTrue(html.contains("--db postgres://***@db:5432/app"), "the command, its URL masked");
        assertFalse(html.contains("s3cret"));
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
    private static String chromium(Path page, String what) throws IOException, InterruptedException {
        String browser = Files.isExecutable(Paths.get("/usr/bin/chromium")) ? "/usr/bin/chromium" : null;
        assertTrue(browser != null, "headless Chromium renders the page: apt-get install chromium (.ci/run does)");
        Process process = new ProcessBuilder(browser, "--headless=new", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--window-size=1280,1800", "--virtual-time-budget=5000", what,
                page.toUri().toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(BROWSER_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("chromium did not end within " + BROWSER_SECONDS + " s");
        }
        assertEquals(0, process.exitValue(), "chromium " + what);
        return new String(out, StandardCharsets.UTF_8);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
