package io.perfpin.agent;

import static io.perfpin.agent.JavaagentIT.assertWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.export.ExportedThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's Prometheus endpoint scraped by a real Prometheus server: the series and values its HTTP API returns,
 * {@code promtool check metrics} on the exposition, the number of series while a pool churns 10,000 threads or
 * while 400 pinned threads start and end, a port in use or an address not of this machine, and clients that would
 * starve the endpoint.
 */
class PrometheusIT {
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    private static final int CHURNED = 10_000;
    private static final int PAGES = 2048;
    private static final int IDLE_CLIENTS = 40;
    private static final int SLOW_CLIENTS = 10;
    /** A scrape's deadline, connecting and reading alike, as Prometheus's scrape_timeout. */
    private static final int SCRAPE_MILLIS = 3000;

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
        try (AppJvm app = AppJvm.start(
                        JAVA,
                        "threads=worker-.*|churn-.*;pin=pinned-0@1;events=page-faults;" + "interval=100ms;out=" + out
                                + ";prometheus=127.0.0.1:" + port,
                        dir);
                PrometheusServer prometheus = PrometheusServer.scraping(dir, port)) {
            app.await("ready");
            app.send("start worker-1 " + PAGES / 2);
            app.send("start worker-2 " + PAGES / 2);
            app.send("start pinned-0 " + PAGES);
            app.touched("worker-1");
            app.touched("worker-2");
            app.touched("pinned-0");

            prometheus.await("up{job=\"perfpin\"}", up -> up == 1);
            double workers = prometheus.await(
                    "perfpin_thread_page_faults_total{thread_group=\"worker\"}", faults -> faults >= PAGES * 0.97);
            assertWithin(PAGES, (long) workers, 0.03, "the worker group's page faults in Prometheus");
            double pinned = prometheus.await(
                    "perfpin_thread_page_faults_total{thread_group=\"pinned\"," + "thread=\"pinned-0\",cpu=\"1\"}",
                    faults -> faults >= PAGES * 0.97);
            assertWithin(PAGES, (long) pinned, 0.03, "pinned-0's page faults in Prometheus");
            assertEquals(
                    List.of(),
                    prometheus.query("perfpin_thread_coverage_ratio"),
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
            double recorded = churned.stream()
                    .mapToDouble(r -> Observed.number(r, "page-faults"))
                    .sum();
            prometheus.await("perfpin_thread_page_faults_total{thread_group=\"churn\"}", faults -> faults == recorded);
            prometheus.await("perfpin_threads_finished_total", finished -> finished >= CHURNED);

            List<Map<String, Object>> series = prometheus.series("{job=\"perfpin\"}", start);
            System.out.println(
                    "series Prometheus holds for the agent after " + CHURNED + " churned threads: " + series.size());
            assertTrue(series.size() < 40, series.size() + " series: " + series);
            assertTrue(
                    series.stream()
                            .noneMatch(s -> String.valueOf(s.get("thread")).startsWith("churn")),
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
        try (AppJvm app = AppJvm.start(
                        JAVA,
                        "threads=churn-.*;pin=churn-.*@0;events=page-faults;interval=100ms;" + "out=" + out
                                + ";prometheus=127.0.0.1:" + port,
                        dir);
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
            double recorded = churned.stream()
                    .mapToDouble(r -> Observed.number(r, "page-faults"))
                    .sum();
            prometheus.await(
                    "perfpin_thread_page_faults_total{thread_group=\"churn\",thread=\"\"}",
                    faults -> faults == recorded);

            List<Map<String, Object>> now = prometheus.query("{job=\"perfpin\"}");
            long groups = now.stream()
                    .map(s -> ((Map<?, ?>) s.get("metric")).get("thread_group"))
                    .filter(Objects::nonNull)
                    .distinct()
                    .count();
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
                    .map(s -> s.get("thread"))
                    .distinct()
                    .count();
            double dropped = prometheus.value("perfpin_series_dropped_total");
            System.out.println("churned threads with series of their own: " + own + ", dropped: " + dropped);
            assertEquals(PINNED_CHURN, own + (long) dropped, own + " own series and " + dropped + " dropped");
            assertEquals(0, app.finish());
            assertEquals(
                    dropped > 0
                            ? List.of("[perfpin] exporting threads beyond " + ExportedThreads.MAX_THREAD_SERIES
                                    + " with series of their own (pinned, or named by export-threads) in their"
                                    + " groups' series instead")
                            : List.of(),
                    app.stderr(),
                    "the bound said once, if reached");
        }
    }

    @Test
    void aPortInUseOrAnAddressNotOfThisMachineIsOneLineAndCountingGoesOn(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            assertCountsAndSays(dir.resolve("in-use"), address, "cannot serve Prometheus metrics at " + address + ": ");
        }
        // TEST-NET-1 (RFC 5737): no machine has it, so binding fails and nothing is sent anywhere
        assertCountsAndSays(
                dir.resolve("not-here"), "192.0.2.1:9464", "cannot serve Prometheus metrics at 192.0.2.1:9464: ");
    }

    private static void assertCountsAndSays(Path dir, String address, String said) throws Exception {
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(
                JAVA,
                "threads=worker-.*;events=page-faults;interval=100ms;out=" + out + ";prometheus=" + address,
                dir)) {
            app.await("ready");
            // The endpoint binds on its own thread: its refusal may come after "ready", and an exit before it would
            // leave it unsaid (the JVM was ending: there was nothing left to serve).
            app.awaitStderr("[perfpin] " + said);
            app.send("start worker-1 " + PAGES);
            app.touched("worker-1");
            assertEquals(0, app.finish());
            List<String> stderr = app.stderr();
            assertEquals(1, stderr.size(), stderr.toString());
            assertTrue(
                    stderr.get(0).startsWith("[perfpin] " + said)
                            && stderr.get(0).endsWith("; counting goes on"),
                    stderr.get(0));
        }
        List<String> finals = Observed.records(out, "thread", "worker-1");
        assertEquals(1, finals.size());
        assertWithin(PAGES, (long) Observed.number(finals.get(0), "page-faults"), 0.03, "worker-1's final page faults");
    }

    /**
     * 40 clients that connect and send nothing and 10 that send one header line a second, each connecting again as
     * soon as it is dropped: three scrapes in a row are answered, each within the scrape's deadline, and the
     * application's JVM has the same threads and descriptors afterwards (no thread per connection, none left open).
     * HotSpot's own threads are fixed in number here (the serial collector, compiler threads all started): it would
     * start and end GC workers and compiler threads as its load grows and shrinks, whatever the endpoint does.
     */
    @Test
    void idleAndSlowClientsThatReconnectCannotStarveAScrape(@TempDir Path dir) throws Exception {
        int port = PrometheusServer.freePort();
        try (AppJvm app = AppJvm.start(
                JAVA,
                "threads=worker-.*;events=page-faults;interval=100ms;prometheus=127.0.0.1:" + port,
                dir,
                "-XX:+UseSerialGC",
                "-XX:-UseDynamicNumberOfCompilerThreads")) {
            app.await("ready");
            app.send("start worker-1 " + PAGES);
            app.touched("worker-1");
            awaitScrape(port);
            List<String> threads = Observed.threadNames(app.pid());
            List<String> descriptors = settledDescriptors(app.pid());

            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger connections = new AtomicInteger();
            CountDownLatch connected = new CountDownLatch(IDLE_CLIENTS + SLOW_CLIENTS);
            List<Thread> clients = new ArrayList<>();
            try {
                for (int i = 0; i < IDLE_CLIENTS + SLOW_CLIENTS; i++) {
                    boolean slow = i < SLOW_CLIENTS;
                    Thread client = new Thread(
                            () -> reconnecting(port, slow, stop, connections, connected),
                            (slow ? "slow-" : "idle-") + i);
                    client.setDaemon(true);
                    clients.add(client);
                    client.start();
                }
                // every client connected once, or 10 s of trying: a listener that cannot take them is what the
                // scrapes then meet
                connected.await(10, TimeUnit.SECONDS);
                Thread.sleep(3000); // the slow clients are three lines into their heads
                for (int scrape = 1; scrape <= 3; scrape++) {
                    long asked = System.nanoTime();
                    String answer = scrape(port);
                    System.out.printf(
                            "scrape %d under %d idle and %d slow clients: %d ms%n",
                            scrape,
                            IDLE_CLIENTS,
                            SLOW_CLIENTS,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked));
                    assertTrue(
                            answer.startsWith("HTTP/1.1 200 OK\r\n") && answer.contains("\nperfpin_threads_enrolled "),
                            "scrape " + scrape + ": " + answer);
                }
            } finally {
                stop.set(true);
                for (Thread client : clients) {
                    client.join(TimeUnit.SECONDS.toMillis(30));
                }
            }
            System.out.println("connections the clients made: " + connections.get());
            assertTrue(clients.stream().noneMatch(Thread::isAlive), "every client ended");
            assertEquals(threads, Observed.threadNames(app.pid()), "the application's threads");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!descriptors.equals(Observed.descriptors(app.pid())) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertEquals(descriptors, Observed.descriptors(app.pid()), "the application's descriptors");
            assertEquals(0, app.finish());
            assertEquals(List.of(), app.stderr(), "nothing said on the application's stderr");
        }
    }

    /**
     * One client until {@code stop}: it connects and, idle, sends nothing, or, slow, sends a request head one line
     * a second; dropped, it connects again at once. Each wait is a second at most, so it sees {@code stop} soon.
     */
    private static void reconnecting(
            int port, boolean slow, AtomicBoolean stop, AtomicInteger connections, CountDownLatch connected) {
        boolean first = true;
        while (!stop.get()) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                connections.incrementAndGet();
                if (first) {
                    first = false;
                    connected.countDown();
                }
                socket.setSoTimeout(1000);
                OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                if (slow) {
                    out.write("GET /metrics HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                for (int line = 0; !stop.get(); line++) {
                    if (slow) {
                        out.write(("X-Slow-" + line + ": 1\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    }
                    try {
                        if (in.read() < 0) {
                            break; // dropped by the endpoint
                        }
                    } catch (SocketTimeoutException stillOpen) {
                        // a second went by: the next line
                    }
                }
            } catch (IOException dropped) {
                // reset or refused: connect again
            }
        }
    }

    /** Waits, at most 60 s, until the endpoint answers a scrape. */
    private static void awaitScrape(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                if (get(port, "/metrics", null).startsWith("HTTP/1.1 200 OK\r\n")) {
                    return;
                }
            } catch (IOException notYet) {
                // the endpoint binds on its own thread
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the endpoint at 127.0.0.1:" + port + " did not answer in 60 s");
    }

    /** The process's descriptors once two looks, 200 ms apart, agree: a connection just answered is closed. */
    private static List<String> settledDescriptors(long pid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> before = Observed.descriptors(pid);
        while (System.nanoTime() < deadline) {
            Thread.sleep(200);
            List<String> now = Observed.descriptors(pid);
            if (now.equals(before)) {
                return now;
            }
            before = now;
        }
        throw new AssertionError("the descriptors of " + pid + " did not settle in 30 s: " + before);
    }

    /** promtool's verdict on an exposition: its exit code and what it printed. */
    private static String promtoolCheckMetrics(String exposition) throws Exception {
        Process promtool = new ProcessBuilder(
                        PrometheusServer.program("promtool").toString(), "check", "metrics")
                .redirectErrorStream(true)
                .start();
        try (OutputStream in = promtool.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        String said = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(60, TimeUnit.SECONDS), "promtool ended");
        return "exit " + promtool.exitValue() + ": " + said;
    }

    /** One raw HTTP/1.1 exchange with the agent's endpoint, as a scraper has it. */
    static String get(int port, String path, String accept) throws IOException {
        return get(port, path, accept, 10_000);
    }

    /** A scrape with Prometheus's deadline: connected, and each read answered, within {@value #SCRAPE_MILLIS} ms. */
    private static String scrape(int port) throws IOException {
        return get(port, "/metrics", null, SCRAPE_MILLIS);
    }

    private static String get(int port, String path, String accept, int timeoutMillis) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    + (accept == null ? "" : "Accept: " + accept + "\r\n") + "\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
