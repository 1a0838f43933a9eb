package io.perfpin.agent.metrics;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.export.ExportSnapshot;
import io.perfpin.options.ListenAddress;
import io.perfpin.stats.AgentNotice;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The Prometheus endpoint: {@code GET /metrics} on one address, and nothing else. It runs on one thread of
 * perfpin's, which binds (a host name is looked up there, not on an application thread) and then answers one
 * connection at a time, each closed after its answer: a request head of at most {@value #MAX_HEAD_BYTES} bytes,
 * read within {@value #HEAD_MILLIS} ms; any other method is 405, any other path 404, and no file is ever read.
 * The answer is the last snapshot the sampler published, so a scrape makes no system call of perfpin's. It holds
 * two descriptors out of the agent's budget: the listener and the connection it answers.
 */
final class PrometheusEndpoint implements AutoCloseable {
    static final int MAX_HEAD_BYTES = 8192;
    static final int HEAD_MILLIS = 5000;
    /** What is read and dropped of a request after its answer, so that closing does not reset the answer away. */
    private static final int DRAIN_BYTES = 64 * 1024;
    private static final int DRAIN_MILLIS = 1000;
    private static final int DESCRIPTORS = 2;
    private static final int BACKLOG = 16;
    private static final byte[] END_OF_HEAD = {'\r', '\n', '\r', '\n'};

    private final ListenAddress address;
    private final Supplier<ExportSnapshot> snapshots;
    private final DescriptorBudget budget;
    private final Consumer<AgentNotice> notices;
    private final Thread thread;
    private volatile ServerSocket server;
    private volatile boolean closing;

    private PrometheusEndpoint(ListenAddress address, Supplier<ExportSnapshot> snapshots, DescriptorBudget budget,
                               Consumer<AgentNotice> notices) {
        this.address = address;
        this.snapshots = snapshots;
        this.budget = budget;
        this.notices = notices;
        this.thread = new Thread(this::serve, "perfpin-prometheus");
        this.thread.setDaemon(true);
    }

    static PrometheusEndpoint start(ListenAddress address, Supplier<ExportSnapshot> snapshots, DescriptorBudget budget,
                                    Consumer<AgentNotice> notices) {
        PrometheusEndpoint endpoint = new PrometheusEndpoint(address, snapshots, budget, notices);
        endpoint.thread.start();
        return endpoint;
    }

    private void serve() {
        if (!budget.take(DESCRIPTORS)) {
            refused("no file descriptor is left for it: " + budget.reason());
            return;
        }
        ServerSocket bound;
        try {
            bound = address.bind(BACKLOG);
        } catch (IOException | RuntimeException e) {
            refused(e.getMessage() == null ? e.toString() : e.getMessage());
            budget.giveBack(DESCRIPTORS);
            return;
        }
        try (ServerSocket listener = bound) {
            server = listener;
            if (closing) {
                return;
            }
            while (!closing) {
                try (Socket connection = listener.accept()) {
                    answer(connection);
                    drain(connection);
                } catch (IOException | RuntimeException e) {
                    // that connection is gone or misbehaved: the next one is answered as usual
                }
            }
        } catch (IOException e) {
            refused(e.toString());
        } finally {
            budget.giveBack(DESCRIPTORS);
        }
    }

    private void refused(String why) {
        if (!closing) {
            notices.accept(AgentNotice.refused("cannot serve Prometheus metrics at " + address + ": " + why
                    + "; counting goes on"));
        }
    }

    private void answer(Socket connection) throws IOException {
        connection.setSoTimeout(HEAD_MILLIS);
        String head = readHead(connection.getInputStream());
        OutputStream out = connection.getOutputStream();
        if (head == null) {
            respond(out, "431 Request Header Fields Too Large", "text/plain", "request head too large\n");
            return;
        }
        String[] requestLine = head.substring(0, Math.max(head.indexOf("\r\n"), 0)).split(" ", -1);
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
            respond(out, "400 Bad Request", "text/plain", "not an HTTP/1 request\n");
        } else if (!path(requestLine[1]).equals("/metrics")) {
            respond(out, "404 Not Found", "text/plain", "perfpin serves GET /metrics only\n");
        } else if (!requestLine[0].equals("GET")) {
            respond(out, "405 Method Not Allowed\r\nAllow: GET", "text/plain", "perfpin serves GET /metrics only\n");
        } else {
            ExpositionFormatWriter writer = PrometheusExposition.writerFor(header(head, "accept"));
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            writer.write(body, PrometheusExposition.of(snapshots.get()));
            respond(out, "200 OK", writer.getContentType(), body.toByteArray());
        }
    }

    /**
     * Reads what the client still sends (a body, the rest of a head too large) once it has its answer, at most
     * {@value #DRAIN_BYTES} bytes for at most {@value #DRAIN_MILLIS} ms: a socket closed with unread bytes is reset,
     * and a reset can reach the client before it read the answer.
     */
    private static void drain(Socket connection) throws IOException {
        connection.shutdownOutput();
        connection.setSoTimeout(DRAIN_MILLIS);
        InputStream in = connection.getInputStream();
        byte[] buffer = new byte[4096];
        long deadline = System.nanoTime() + DRAIN_MILLIS * 1_000_000L;
        for (int read = 0; read < DRAIN_BYTES && System.nanoTime() < deadline; ) {
            int n = in.read(buffer);
            if (n < 0) {
                return;
            }
            read += n;
        }
    }

    /**
     * The request head up to its blank line, as Latin-1; null when it is longer than {@link #MAX_HEAD_BYTES}. Gives
     * up with an exception after {@link #HEAD_MILLIS} ms, however slowly the bytes come.
     */
    private static String readHead(InputStream in) throws IOException {
        byte[] head = new byte[MAX_HEAD_BYTES];
        int length = 0;
        long deadline = System.nanoTime() + HEAD_MILLIS * 1_000_000L;
        while (length < head.length) {
            if (System.nanoTime() > deadline) {
                throw new IOException("request head not complete within " + HEAD_MILLIS + " ms");
            }
            int n = in.read(head, length, head.length - length);
            if (n < 0) {
                throw new IOException("connection closed within the request head");
            }
            int searchFrom = Math.max(0, length - END_OF_HEAD.length + 1);
            length += n;
            int end = indexOf(head, length, searchFrom);
            if (end >= 0) {
                return new String(head, 0, end + 2, StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static int indexOf(byte[] bytes, int length, int from) {
        for (int i = from; i + END_OF_HEAD.length <= length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n' && bytes[i + 2] == '\r' && bytes[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static String path(String target) {
        int query = target.indexOf('?');
        return query < 0 ? target : target.substring(0, query);
    }

    /** A header's value, the first of that name; null when the head has none. */
    private static String header(String head, String name) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().toLowerCase(Locale.ROOT).equals(name)) {
                return line.substring(colon + 1).strip();
            }
        }
        return null;
    }

    private static void respond(OutputStream out, String status, String contentType, String body) throws IOException {
        respond(out, status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void respond(OutputStream out, String status, String contentType, byte[] body) throws IOException {
        out.write(("HTTP/1.1 " + status + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    /** Stops answering and lets go of the address; the thread ends. */
    @Override
    public void close() {
        closing = true;
        ServerSocket listener = server;
        if (listener != null) {
            try {
                listener.close();
            } catch (IOException e) {
                // closing a listener: nothing to lose
            }
        }
        try {
            thread.join(HEAD_MILLIS * 2L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
