package io.perfpin.agent.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.export.ExportedThreads;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.stats.AgentNotice;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The OTLP export's thread and its schedule, to a port where nothing listens, or a collector of the test's. */
class OtlpExportTest {
    /**
     * An export whose snapshot throws an Error (an OutOfMemoryError, as a JVM near its heap's end meets one) is said
     * once, and the exports go on every interval: a throw out of the scheduled task would end its schedule for good.
     */
    @Test
    void anExportThatMeetsAnErrorIsSaidOnceAndTheExportsGoOn() throws Exception {
        ExportedThreads threads = new ExportedThreads(null, text -> {});
        threads.publish(System.currentTimeMillis(), Double.NaN);
        AtomicInteger reads = new AtomicInteger();
        List<AgentNotice> notices = new CopyOnWriteArrayList<>();
        OtlpExport export = OtlpExport.start(
                OtlpEndpoint.parse("http://127.0.0.1:" + PrometheusEndpointTest.freePort() + "/v1/metrics", "bad url"),
                TimeUnit.MILLISECONDS.toNanos(20),
                () -> {
                    // the first read builds the instruments; the second is an export's
                    if (reads.incrementAndGet() == 2) {
                        throw new OutOfMemoryError("Java heap space (thrown by the test)");
                    }
                    return threads.snapshot();
                },
                DescriptorBudget.unbounded(),
                notices::add);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (reads.get() < 10 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(reads.get() >= 10, "snapshots read after the error: " + (reads.get() - 2));
        } finally {
            export.close();
        }
        List<AgentNotice> errors = notices.stream()
                .filter(n -> n.cause() instanceof OutOfMemoryError)
                .toList();
        assertEquals(1, errors.size(), notices.toString());
        assertTrue(
                errors.get(0).text().startsWith("exporting metrics to the OTLP receiver at http://127.0.0.1:"),
                errors.get(0).text());
    }

    /**
     * A collector that answers one byte a second, each within the timeout of a read, is given up at the exchange's
     * one deadline: said once, while its answer still trickles, not when it ends half a minute later.
     */
    @Test
    void aCollectorThatAnswersByTheByteIsGivenUpAtOneDeadlineAndSaidOnce() throws Exception {
        ExportedThreads threads = new ExportedThreads(null, text -> {});
        threads.publish(System.currentTimeMillis(), Double.NaN);
        List<AgentNotice> notices = new CopyOnWriteArrayList<>();
        byte[] answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        AtomicBoolean answered = new AtomicBoolean();
        int port;
        try (ServerSocket collector = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
            port = collector.getLocalPort();
            Thread trickling = new Thread(
                    () -> {
                        try (Socket exchange = collector.accept()) {
                            readRequest(exchange.getInputStream());
                            for (byte b : answer) {
                                exchange.getOutputStream().write(b);
                                Thread.sleep(1000);
                            }
                            answered.set(true);
                        } catch (IOException | InterruptedException e) {
                            // the sender closed it, or the test ended
                        }
                    },
                    "trickling-collector");
            trickling.setDaemon(true);
            trickling.start();
            OtlpExport export = OtlpExport.start(
                    OtlpEndpoint.parse("http://127.0.0.1:" + port, "bad url"),
                    TimeUnit.MILLISECONDS.toNanos(100),
                    threads::snapshot,
                    DescriptorBudget.unbounded(),
                    notices::add);
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (notices.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertFalse(answered.get(), "given up while the answer trickled");
            } finally {
                export.close();
                trickling.interrupt();
                trickling.join(10_000);
            }
        }
        assertEquals(
                "cannot export metrics to the OTLP receiver at http://127.0.0.1:"
                        + port
                        + "/v1/metrics: it did not take the metrics and answer within "
                        + TimeUnit.SECONDS.toMillis(OtlpInstruments.TIMEOUT_SECONDS)
                        + " ms; counting goes on, and each export interval tries again",
                notices.get(0).text());
        assertTrue(notices.get(0).refused(), notices.toString());
        assertEquals(
                1,
                notices.stream()
                        .filter(n -> n.text().startsWith("cannot export"))
                        .count(),
                notices.toString());
    }

    /** Reads an HTTP request's head and its body of Content-Length bytes. */
    private static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the request ended in its head");
            }
            head.append((char) b);
        }
        Matcher length = Pattern.compile("(?i)\r\ncontent-length: *([0-9]+)").matcher(head);
        assertTrue(length.find(), head.toString());
        in.readNBytes(Integer.parseInt(length.group(1)));
    }
}
