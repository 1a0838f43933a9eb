package io.perfpin.agent;

import io.perfpin.export.ExportedThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import static io.perfpin.agent.JavaagentIT.assertWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's Prometheus endpoint scraped by a real Prometheus server: the series and values its HTTP API returns,
 * {@code promtool check metrics} on the exposition, the number of series while a pool churns 10,000 threads or
 * while 400 pinned threads start and end, and a port in use or an address not of this machine.
 */
class PrometheusIT {
    private static final String JAVA = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    private static final int CHURNED = 10_000;
    private static final int PAGES = 2048;
    private static final int PINNED_CHURN = 400;
    /** Series of perfpin's health: enrolled, not counted, finished, dropped, the sampler's CPU time. */
    private static final int HEALTH_SERIES = 5;
    /** Series Prometheus adds to every target: up and scrape_* (duration, samples, post-relabeling, added). */
    private static final int SCRAPE_SERIES = 5;

    @Test
    void prometheusScrapesEachGroupAndPinnedThreadAndTheSeriesStayBoundedWhileAPoolChurns(@TempDir Path dir)
            throws Exception {
        int port = PrometheusServer.freePort();
        Path out = dir.resolve("run.jsonl");
        long start = System.currentTimeMillis() / 1000 - 1;
        try (AppJvm app = AppJvm.start(JAVA, "threads=worker-.*|churn-.*;pin=pinned-0@1;events=page-faults;"
                + "interval=100ms;out=" + out + ";prometheus=127.0.0.1:" + port, dir);
             PrometheusServer prometheus = PrometheusServer.scraping(dir, port)) {
            app.await("ready");
            app.send("start worker-1 " + PAGES / 2);
            app.send("start worker-2 " + PAGES / 2);
            app.send("start pinned-0 " + PAGES);
            app.touched("worker-1");
            app.touched("worker-2");
            app.touched("pinned-0");

            prometheus.await("up{job=\"perfpin\"}", up -> up == 1);
            double workers = prometheus.await("perfpin_thread_page_faults_total{thread_group=\"worker\"}",
                    faults -> faults >= PAGES * 0.97);
            assertWithin(PAGES, (long) workers, 0.03, "the worker group's page faults in Prometheus");
            double pinned = prometheus.await("perfpin_thread_page_faults_total{thread_group=\"pinned\","
                    + "thread=\"pinned-0\",cpu=\"1\"}", faults -> faults >= PAGES * 0.97);
            assertWithin(PAGES, (long) pinned, 0.03, "pinned-0's page faults in Prometheus");
            assertEquals(List.of(), prometheus.query("perfpin_thread_coverage_ratio"),
                    "page-faults is never multiplexed: no coverage series");
            assertEquals(0.0, prometheus.value("perfpin_series_dropped_total"));
            assertEquals(0.0, prometheus.value("perfpin_threads_not_counted"));
            assertTrue(prometheus.value("perfpin_sampler_task_clock_seconds_total") > 0, "the sampler's cost");

            String exposition = get(port, "/metrics", null);
            assertTrue(exposition.startsWith("HTTP/1.1 200 OK\r\n"), exposition);
            String promtool = promtoolCheckMetrics(exposition.substring(exposition.indexOf("\r\n\r\n") + 4));
            assertEquals("exit 0: ", promtool, "promtool check metrics accepts the exposition");

            app.send("churn " + CHURNED + " 0 churn");
            app.await("churned " + CHURNED);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (Observed.records(out, "thread", "churn-\\d+").size() < CHURNED && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            List<String> churned = Observed.records(out, "thread", "churn-\\d+");
            assertEquals(CHURNED, churned.size(), "a final record per churned thread");
            double recorded = churned.stream().mapToDouble(r -> Observed.number(r, "page-faults")).sum();
            prometheus.await("perfpin_thread_page_faults_total{thread_group=\"churn\"}", faults -> faults == recorded);
            prometheus.await("perfpin_threads_finished_total", finished -> finished >= CHURNED);

            List<Map<String, Object>> series = prometheus.series("{job=\"perfpin\"}", start);
            System.out.println("series Prometheus holds for the agent after " + CHURNED + " churned threads: "
                    + series.size());
            assertTrue(series.size() < 40, series.size() + " series: " + series);
            assertTrue(series.stream().noneMatch(s -> String.valueOf(s.get("thread")).startsWith("churn")),
                    "no churned thread has a series of its own");
            assertEquals(0, app.finish());
            assertEquals(List.of(), app.stderr(), "nothing said on the application's stderr");
        }
    }

    @Test
    void pinnedThreadsThatEndFoldIntoTheirGroupAndTheSeriesStayWithinTheBound(@TempDir Path dir) throws Exception {
        int port = PrometheusServer.freePort();
        Path out = dir.resolve("run.jsonl");
        long start = System.currentTimeMillis() / 1000 - 1;
        try (AppJvm app = AppJvm.start(JAVA, "threads=churn-.*;pin=churn-.*@0;events=page-faults;interval=100ms;"
                + "out=" + out + ";prometheus=127.0.0.1:" + port, dir);
             PrometheusServer prometheus = PrometheusServer.scraping(dir, port)) {
            app.await("ready");
            prometheus.await("up{job=\"perfpin\"}", up -> up == 1);
            app.send("churn " + PINNED_CHURN + " 16 churn");
            app.await("churned " + PINNED_CHURN);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (Observed.records(out, "thread", "churn-\\d+").size() < PINNED_CHURN
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            List<String> churned = Observed.records(out, "thread", "churn-\\d+");
            assertEquals(PINNED_CHURN, churned.size(), "a final record per churned thread");

            // each ended thread's series stays for the grace period, then folds into the group's
            prometheus.await("count({job=\"perfpin\",thread=~\"churn-.*\"}) or vector(0)", n -> n == 0);
            double recorded = churned.stream().mapToDouble(r -> Observed.number(r, "page-faults")).sum();
            prometheus.await("perfpin_thread_page_faults_total{thread_group=\"churn\",thread=\"\"}",
                    faults -> faults == recorded);

            List<Map<String, Object>> now = prometheus.query("{job=\"perfpin\"}");
            long groups = now.stream().map(s -> ((Map<?, ?>) s.get("metric")).get("thread_group"))
                    .filter(Objects::nonNull).distinct().count();
            assertEquals(1, groups, "the churned threads' group: " + now);
            assertEquals(0.0, prometheus.value("perfpin_threads_enrolled"), "no selected thread lives");
            // (events + multiplexed events) x (groups + live selected threads) + health + Prometheus's own
            long bound = (1 + 0) * (groups + 0) + HEALTH_SERIES + SCRAPE_SERIES;
            System.out.println("series Prometheus scrapes from the agent after " + PINNED_CHURN
                    + " pinned threads ended: " + now.size() + " (bound " + bound + ")");
            assertTrue(now.size() <= bound, now.size() + " series: " + now);

            // every churned thread either had a series of its own, scraped at least once in its grace period,
            // or was counted in its group for want of room, and counted as dropped
            long own = prometheus.series("{job=\"perfpin\",thread=~\"churn-.*\"}", start).stream()
                    .map(s -> s.get("thread")).distinct().count();
            double dropped = prometheus.value("perfpin_series_dropped_total");
            System.out.println("churned threads with series of their own: " + own + ", dropped: " + dropped);
            assertEquals(PINNED_CHURN, own + (long) dropped, own + " own series and " + dropped + " dropped");
            assertEquals(0, app.finish());
            assertEquals(dropped > 0 ? List.of("[perfpin] exporting threads beyond " + ExportedThreads.MAX_THREAD_SERIES
                    + " with series of their own (pinned, or named by export-threads) in their groups' series"
                    + " instead") : List.of(), app.stderr(), "the bound said once, if reached");
        }
    }

    @Test
    void aPortInUseOrAnAddressNotOfThisMachineIsOneLineAndCountingGoesOn(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            assertCountsAndSays(dir.resolve("in-use"), address, "cannot serve Prometheus metrics at " + address + ": ");
        }
        // TEST-NET-1 (RFC 5737): no machine has it, so binding fails and nothing is sent anywhere
        assertCountsAndSays(dir.resolve("not-here"), "192.0.2.1:9464",
                "cannot serve Prometheus metrics at 192.0.2.1:9464: ");
    }

    private static void assertCountsAndSays(Path dir, String address, String said) throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(JAVA, "threads=worker-.*;events=page-faults;interval=100ms;out=" + out
                + ";prometheus=" + address, dir)) {
            app.await("ready");
            app.send("start worker-1 " + PAGES);
            app.touched("worker-1");
            assertEquals(0, app.finish());
            List<String> stderr = app.stderr();
            assertEquals(1, stderr.size(), stderr.toString());
            assertTrue(stderr.get(0).startsWith("[perfpin] " + said) && stderr.get(0).endsWith("; counting goes on"),
                    stderr.get(0));
        }
        List<String> finals = Observed.records(out, "thread", "worker-1");
        assertEquals(1, finals.size());
        assertWithin(PAGES, (long) Observed.number(finals.get(0), "page-faults"), 0.03, "worker-1's final page faults");
    }

    /** promtool's verdict on an exposition: its exit code and what it printed. */
    private static String promtoolCheckMetrics(String exposition) throws Exception {
        Process promtool = new ProcessBuilder(PrometheusServer.PROMTOOL.toString(), "check", "metrics")
                .redirectErrorStream(true).start();
        try (OutputStream in = promtool.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        String said = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(60, TimeUnit.SECONDS), "promtool ended");
        return "exit " + promtool.exitValue() + ": " + said;
    }

    /** One raw HTTP/1.1 exchange with the agent's endpoint, as a scraper has it. */
    static String get(int port, String path, String accept) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + (accept == null ? "" : "Accept: " + accept + "\r\n") + "\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

}
