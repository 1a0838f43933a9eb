package io.perfpin.agent;

import io.perfpin.apps.Programs;
import io.perfpin.report.JsonReader;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (the Debian package's {@code prometheus}, on the PATH) on a loopback port, scraping one
 * target every second, asked through its HTTP API.
 */
final class PrometheusServer implements AutoCloseable {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Process process;
    private final int port;
    private final Path log;

    private PrometheusServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** One of the prometheus package's programs, from the PATH; the test fails without it, saying what to install. */
    static Path program(String name) {
        return Programs.onPath(name)
                .orElseThrow(() -> new AssertionError("prometheus and promtool are needed on the"
                        + " PATH: apt-get install prometheus (.ci/run installs it)"));
    }

    /** Starts Prometheus in {@code dir}, scraping {@code 127.0.0.1:target} as job {@code perfpin}, until ready. */
    static PrometheusServer scraping(Path dir, int target) throws Exception {
        Path binary = program("prometheus");
        program("promtool");
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(
                config,
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
                        + "  - job_name: perfpin\n    static_configs:\n      - targets: ['127.0.0.1:" + target
                        + "']\n");
        int port = freePort();
        Path log = dir.resolve("prometheus.log");
        Process process = new ProcessBuilder(
                        binary.toString(),
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + dir.resolve("tsdb"),
                        "--web.listen-address=127.0.0.1:" + port,
                        "--log.level=warn")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        PrometheusServer server = new PrometheusServer(process, port, log);
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!server.ready()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new AssertionError("Prometheus did not start: " + Files.readString(log));
            }
            Thread.sleep(100);
        }
        return server;
    }

    private boolean ready() {
        try {
            return get("/-/ready").startsWith("Prometheus Server is Ready");
        } catch (IOException e) {
            return false;
        }
    }

    /** The result of an instant query: each series' labels and value. */
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> query(String promql) throws IOException {
        Map<String, Object> answer = (Map<String, Object>)
                JsonReader.parse(get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)));
        return (List<Map<String, Object>>) ((Map<String, Object>) answer.get("data")).get("result");
    }

    /** The value of a query that gives one series; NaN while it gives none. */
    @SuppressWarnings("unchecked")
    double value(String promql) throws IOException {
        List<Map<String, Object>> result = query(promql);
        if (result.isEmpty()) {
            return Double.NaN;
        }
        if (result.size() > 1) {
            throw new AssertionError(promql + " gives " + result.size() + " series: " + result);
        }
        return Double.parseDouble((String) ((List<Object>) result.get(0).get("value")).get(1));
    }

    /** Waits until {@code promql} gives one series whose value {@code wanted} accepts, and returns it. */
    double await(String promql, java.util.function.DoublePredicate wanted) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        double value = Double.NaN;
        while (System.nanoTime() < deadline) {
            value = value(promql);
            if (!Double.isNaN(value) && wanted.test(value)) {
                return value;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(promql + " is " + value + " after 60 s; Prometheus said: " + Files.readString(log));
    }

    /** Every series whose labels {@code match} selects, seen since {@code startSeconds} (epoch). */
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> series(String match, long startSeconds) throws IOException {
        Map<String, Object> answer = (Map<String, Object>) JsonReader.parse(get("/api/v1/series?match[]="
                + URLEncoder.encode(match, StandardCharsets.UTF_8) + "&start=" + startSeconds));
        return (List<Map<String, Object>>) answer.get("data");
    }

    private String get(String path) throws IOException {
        HttpURLConnection connection = (HttpURLConnection)
                URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
        connection.setConnectTimeout(5000);
        connection.setReadTimeout(10_000);
        try (InputStream in = connection.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            connection.disconnect();
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
