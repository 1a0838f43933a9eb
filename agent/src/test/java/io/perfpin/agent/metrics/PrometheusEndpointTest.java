package io.perfpin.agent.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.export.ExportedThreads;
import io.perfpin.options.DescriptorShare;
import io.perfpin.options.ListenAddress;
import io.perfpin.stats.AgentNotice;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The endpoint on a loopback port, asked by a raw socket what a scraper and what an attacker would ask. */
class PrometheusEndpointTest {
    private final List<AgentNotice> notices = new CopyOnWriteArrayList<>();
    private final ExportedThreads threads = new ExportedThreads(null, text -> {});
    private PrometheusEndpoint endpoint;
    private int port;

    @BeforeEach
    void start() throws Exception {
        port = freePort();
        threads.publish(System.currentTimeMillis(), Double.NaN);
        endpoint = PrometheusEndpoint.start(
                ListenAddress.parse(String.valueOf(port), "bad address"),
                threads::snapshot,
                DescriptorBudget.unbounded(),
                notices::add);
        awaitAnswer(InetAddress.getLoopbackAddress(), port);
    }

    @AfterEach
    void stop() {
        endpoint.close();
    }

    @Test
    void getMetricsAnswersInTheTextFormatOrInOpenMetricsWhenAsked() throws Exception {
        String text = exchange("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(text.startsWith("HTTP/1.1 200 OK\r\n"), text);
        assertTrue(text.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), text);
        assertTrue(text.contains("\nperfpin_threads_enrolled 0.0\n"), text);
        String open = exchange("GET /metrics?x=1 HTTP/1.0\r\naccept: application/openmetrics-text;version=1.0.0,"
                + "text/plain;q=0.5\r\n\r\n");
        assertTrue(open.contains("Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"), open);
        assertTrue(open.endsWith("# EOF\n"), open);
        assertEquals(List.of(), notices);
    }

    @Test
    void anythingButGetMetricsIsRefusedAndNoFileIsRead() throws Exception {
        String post = exchange("POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
        assertTrue(post.startsWith("HTTP/1.1 405 Method Not Allowed\r\nAllow: GET\r\n"), post);
        assertTrue(exchange("HEAD /metrics HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 405 "));
        for (String path : List.of(
                "/",
                "/metrics/",
                "/../../../../etc/passwd",
                "/metrics/../../etc/passwd",
                "/-/healthy",
                "/%2e%2e/etc/passwd")) {
            String answer = exchange("GET " + path + " HTTP/1.1\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 404 Not Found\r\n"), path + ": " + answer);
            assertFalse(answer.contains("root:"), answer);
        }
        assertTrue(exchange("hello\r\n\r\n").startsWith("HTTP/1.1 400 Bad Request\r\n"));
        assertTrue(exchange("GET /metrics HTTP/2.0\r\n\r\n").startsWith("HTTP/1.1 400 Bad Request\r\n"));
    }

    @Test
    void aRequestHeadBeyondTheBoundIsRefusedAndTheNextOneAnswered() throws Exception {
        String big =
                "GET /metrics HTTP/1.1\r\nX-Padding: " + "a".repeat(PrometheusEndpoint.MAX_HEAD_BYTES) + "\r\n\r\n";
        assertTrue(exchange(big).startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assertTrue(exchange("GET /metrics HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 200 OK\r\n"));
    }

    @Test
    void aPortInUseIsSaidOnceAndTheEndpointEnds() throws Exception {
        List<AgentNotice> second = new CopyOnWriteArrayList<>();
        PrometheusEndpoint taken = PrometheusEndpoint.start(
                ListenAddress.parse(String.valueOf(port), "bad address"),
                threads::snapshot,
                DescriptorBudget.unbounded(),
                second::add);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (second.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        taken.close();
        assertEquals(1, second.size(), second.toString());
        assertTrue(second.get(0).refused());
        assertTrue(
                second.get(0).text().startsWith("cannot serve Prometheus metrics at 127.0.0.1:" + port + ": "),
                second.get(0).text());
        assertTrue(
                second.get(0).text().endsWith("; counting goes on"),
                second.get(0).text());
        assertTrue(exchange("GET /metrics HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 200 OK\r\n"), "the first serves");
    }

    /**
     * A scrape whose snapshot throws an Error (an OutOfMemoryError, as a JVM near its heap's end meets one) is closed
     * unanswered, said once, and the next is answered: the endpoint's thread goes on, the Error kept from the
     * application's handler of uncaught exceptions.
     */
    @Test
    void aScrapeThatMeetsAnErrorIsSaidOnceAndTheNextIsAnswered() throws Exception {
        int other = freePort();
        AtomicInteger reads = new AtomicInteger();
        PrometheusEndpoint failing = PrometheusEndpoint.start(
                ListenAddress.parse(String.valueOf(other), "bad address"),
                () -> {
                    if (reads.incrementAndGet() == 1) {
                        throw new OutOfMemoryError("Java heap space (thrown by the test)");
                    }
                    return threads.snapshot();
                },
                DescriptorBudget.unbounded(),
                notices::add);
        try {
            awaitAnswer(InetAddress.getLoopbackAddress(), other);
            String first = exchange(InetAddress.getLoopbackAddress(), other, "GET /metrics HTTP/1.1\r\n\r\n");
            assertEquals("", first, "closed unanswered");
            String next = exchange(InetAddress.getLoopbackAddress(), other, "GET /metrics HTTP/1.1\r\n\r\n");
            assertTrue(next.startsWith("HTTP/1.1 200 OK\r\n"), next);
        } finally {
            failing.close();
        }
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.get(0).cause() instanceof OutOfMemoryError, notices.toString());
        assertTrue(
                notices.get(0).text().startsWith("answering a Prometheus scrape at 127.0.0.1:" + other + " failed: "),
                notices.get(0).text());
    }

    @Test
    void closingLetsGoOfTheAddress() throws Exception {
        endpoint.close();
        // close() waits a second for the endpoint's thread, which lets go of the address as it ends: on a loaded
        // host, later
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (ServerSocket again = new ServerSocket()) {
                again.setReuseAddress(true);
                again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return;
            } catch (BindException stillHeld) {
                if (System.nanoTime() > deadline) {
                    throw stillHeld;
                }
                Thread.sleep(20);
            }
        }
    }

    /** Every descriptor back: the endpoint's thread gives them as it ends, which close() waits a second for. */
    private static void awaitAllGivenBack(DescriptorBudget budget) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (budget.held() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, budget.held());
    }

    /**
     * Connections that send nothing: beyond the cap the oldest are closed first, a scrape is answered, one left idle
     * is closed at the head deadline, and every descriptor the endpoint took is given back.
     */
    @Test
    void idleConnectionsCloseOldestFirstPastTheCapAndEveryDescriptorIsGivenBack() throws Exception {
        DescriptorBudget budget = DescriptorBudget.unbounded();
        int own = freePort();
        List<Socket> idle = new ArrayList<>();
        try (PrometheusEndpoint counted = answering(own, budget)) {
            int extra = 8;
            try {
                for (int i = 0; i < PrometheusEndpoint.MAX_CONNECTIONS + extra; i++) {
                    Socket socket = new Socket(InetAddress.getLoopbackAddress(), own);
                    socket.setSoTimeout(10_000);
                    idle.add(socket);
                }
                for (int i = 0; i < extra; i++) {
                    assertEquals(-1, idle.get(i).getInputStream().read(), "connection " + i + " closed");
                }
                assertTrue(exchange(InetAddress.getLoopbackAddress(), own, "GET /metrics HTTP/1.1\r\n\r\n")
                        .startsWith("HTTP/1.1 200 OK\r\n"));
                Socket newest = idle.get(idle.size() - 1);
                assertEquals(-1, newest.getInputStream().read(), "closed at the head deadline, if not before");
            } finally {
                for (Socket socket : idle) {
                    socket.close();
                }
            }
            assertEquals(
                    4 + PrometheusEndpoint.MAX_CONNECTIONS,
                    budget.held(),
                    "the listener, the selector's two, the one to accept with and its places, whatever connected");
        }
        awaitAllGivenBack(budget);
        assertEquals(List.of(), notices);
    }

    /**
     * A client slow to send its request, as a scraper on a loaded machine can be, keeps its place while more
     * connections arrive than the endpoint keeps open: they wait, and its request is answered.
     */
    @Test
    void aConnectionKeepsItsPlaceForItsRequestWhileMoreArrive() throws Exception {
        DescriptorBudget budget = DescriptorBudget.unbounded();
        int own = freePort();
        List<Socket> idle = new ArrayList<>();
        // A place of 3 s: the late client's request must come within it, which a loaded host could delay past 250 ms
        int place = 3000;
        try (PrometheusEndpoint counted = answering(own, budget, place)) {
            try {
                for (int i = 0; i < PrometheusEndpoint.MAX_CONNECTIONS; i++) {
                    idle.add(new Socket(InetAddress.getLoopbackAddress(), own));
                }
                awaitAccepted(own); // until the endpoint took every one in
                Thread.sleep(place); // every one of them may make room now
                try (Socket late = new Socket(InetAddress.getLoopbackAddress(), own)) {
                    late.setSoTimeout(10_000);
                    // as many again arrive before its request: without its place, the 32nd of them closed it
                    for (int i = 0; i < PrometheusEndpoint.MAX_CONNECTIONS + 8; i++) {
                        idle.add(new Socket(InetAddress.getLoopbackAddress(), own));
                    }
                    Thread.sleep(20); // a while to take them in, well within its place
                    late.getOutputStream().write("GET /metrics HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    String answer = new String(late.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertTrue(answer.startsWith("HTTP/1.1 200 OK\r\n"), answer);
                }
            } finally {
                for (Socket socket : idle) {
                    socket.close();
                }
            }
        }
        awaitAllGivenBack(budget);
        assertEquals(List.of(), notices);
    }

    /**
     * With a small fds= share, the endpoint takes its places as it starts, an eighth of the share, and says so once;
     * clients beyond them are its own to close: however many connect, the counters have the rest of the share.
     */
    @Test
    void clientsBeyondItsPlacesNeverTakeTheCountersShareOfDescriptors() throws Exception {
        DescriptorBudget budget = DescriptorBudget.forThisProcess(DescriptorShare.parse("fds=60", "60"));
        int reserved = 4 + 60 / PrometheusEndpoint.SHARE_DIVISOR;
        int own = freePort();
        List<Socket> idle = new ArrayList<>();
        try (PrometheusEndpoint counted = answering(own, budget)) {
            try {
                for (int i = 0; i < PrometheusEndpoint.MAX_CONNECTIONS; i++) {
                    idle.add(new Socket(InetAddress.getLoopbackAddress(), own));
                }
                // accepted in order: once this is answered, the endpoint has taken in or closed those before it
                assertTrue(exchange(InetAddress.getLoopbackAddress(), own, "GET /metrics HTTP/1.1\r\n\r\n")
                        .startsWith("HTTP/1.1 200 OK\r\n"));
                assertEquals(reserved, budget.held(), "the endpoint holds what it took as it started, no more");
                assertTrue(budget.take(60 - reserved), "the counters have the rest of the share");
                budget.giveBack(60 - reserved);
            } finally {
                for (Socket socket : idle) {
                    socket.close();
                }
            }
        }
        awaitAllGivenBack(budget);
        assertEquals(1, notices.size(), notices.toString());
        assertEquals(
                "serving Prometheus metrics at 127.0.0.1:" + own + " with at most 7 connections at once, not 32: the"
                        + " rest of perfpin's share of file descriptors (60, agent option fds=) is the counters'",
                notices.get(0).text());
    }

    /**
     * prometheus=0.0.0.0:P listens on IPv4 only: Java's own ServerSocket would bind it as ::, every IPv6 address
     * too. [::]:P listens on both.
     */
    @Test
    void theIpv4AnyAddressListensOnIpv4OnlyAndTheIpv6OneOnBoth() throws Exception {
        InetAddress ipv4 = InetAddress.getByName("127.0.0.1");
        InetAddress ipv6 = InetAddress.getByName("::1");
        int any4 = freePortOnEveryAddress();
        try (PrometheusEndpoint listening = start("0.0.0.0:" + any4)) {
            awaitAnswer(ipv4, any4);
            assertTrue(exchange(ipv4, any4, "GET /metrics HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 200 OK\r\n"));
            Assumptions.assumeTrue(hasIpv6Loopback(), "this machine has no IPv6 loopback (::1)");
            assertThrows(ConnectException.class, () -> new Socket(ipv6, any4).close(), "refused on ::1");
        }
        int any6 = freePortOnEveryAddress();
        try (PrometheusEndpoint listening = start("[::]:" + any6)) {
            awaitAnswer(ipv6, any6);
            for (InetAddress host : List.of(ipv6, ipv4)) {
                assertTrue(
                        exchange(host, any6, "GET /metrics HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 200 OK\r\n"),
                        host.toString());
            }
        }
        assertEquals(List.of(), notices);
    }

    /** An endpoint on {@code port} of the loopback address, taking its descriptors from {@code budget}, answering. */
    private PrometheusEndpoint answering(int port, DescriptorBudget budget) throws Exception {
        return answering(port, budget, PrometheusEndpoint.PLACE_MILLIS);
    }

    private PrometheusEndpoint answering(int port, DescriptorBudget budget, int placeMillis) throws Exception {
        PrometheusEndpoint endpoint = PrometheusEndpoint.start(
                ListenAddress.parse(String.valueOf(port), "bad address"),
                threads::snapshot,
                budget,
                notices::add,
                placeMillis);
        try {
            awaitAnswer(InetAddress.getLoopbackAddress(), port);
            return endpoint;
        } catch (Exception | AssertionError e) {
            endpoint.close();
            throw e;
        }
    }

    private PrometheusEndpoint start(String address) {
        return PrometheusEndpoint.start(
                ListenAddress.parse(address, "bad address"),
                threads::snapshot,
                DescriptorBudget.unbounded(),
                notices::add);
    }

    private String exchange(String request) throws IOException {
        return exchange(InetAddress.getLoopbackAddress(), port, request);
    }

    private static String exchange(InetAddress host, int port, String request) throws IOException {
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException answeredBeforeTheEnd) {
                // the endpoint answered and closed before the whole request was sent
            }
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Waits, at most 30 s, until the kernel's accept queue of the listener on 127.0.0.1:{@code port} is empty (its
     * line in /proc/net/tcp, whose receive queue is that count for a listener): the endpoint took every connection in.
     */
    private static void awaitAccepted(int port) throws IOException, InterruptedException {
        String listening = String.format(" 0100007F:%04X 00000000:0000 0A ", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String line = null;
        while (System.nanoTime() < deadline) {
            line = Files.readAllLines(Path.of("/proc/net/tcp")).stream()
                    .filter(l -> l.contains(listening))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no listener on 127.0.0.1:" + port));
            String queues = line.substring(line.indexOf(listening) + listening.length()); // tx_queue:rx_queue
            if (queues.startsWith(":00000000", queues.indexOf(':'))) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("connections still wait in the accept queue: " + line);
    }

    /** The endpoint binds on its own thread: waits, at most 10 s, until it takes connections there. */
    private static void awaitAnswer(InetAddress host, int port) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!answers(host, port) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    private static boolean answers(InetAddress host, int port) {
        try (Socket socket = new Socket(host, port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean hasIpv6Loopback() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("::1"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A port that nothing listens on, on IPv4 or IPv6: Java's wildcard socket takes it on both. */
    private static int freePortOnEveryAddress() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
