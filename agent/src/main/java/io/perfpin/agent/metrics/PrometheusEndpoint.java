package io.perfpin.agent.metrics;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.export.ExportSnapshot;
import io.perfpin.nativeio.OptionalLibrary;
import io.perfpin.options.ListenAddress;
import io.perfpin.stats.AgentNotice;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The Prometheus endpoint: {@code GET /metrics} on one address, and nothing else. One thread of perfpin's binds
 * (a host name is looked up there, not on an application thread) and then serves every connection from one
 * selector, none of them blocking it, each closed after its answer: a request head of at most
 * {@value #MAX_HEAD_BYTES} bytes, complete within {@value #HEAD_MILLIS} ms of the connection; any other method is
 * 405, any other path 404, and no file is ever read. At most {@value #MAX_CONNECTIONS} connections are open (its
 * places, below): one more closes the oldest that has its answer, or has sent no complete request once it had
 * {@value #PLACE_MILLIS} ms (read first, {@link #placeTaken}), the others waiting in the listen queue meanwhile. So
 * clients that connect and send nothing, or send slowly, cost no thread and cannot close a scraper's connection
 * before its request came; behind
 * them in the queue, a scrape waits {@value #PLACE_MILLIS} ms for each {@value #MAX_CONNECTIONS} of them. The answer
 * is the last snapshot the sampler published, written once per snapshot and format, so a scrape makes no system call
 * of perfpin's beyond its socket's. Its descriptors come out of the agent's budget, all taken as it starts
 * ({@link #reserve}): the listener, the selector's two (epoll and its wake-up), one for a connection being accepted,
 * and its places, one per connection it keeps open: {@value #MAX_CONNECTIONS}, or {@value #SHARE_DIVISOR}th of the
 * budget where that is fewer. Its clients then meet its own bound, never the counters': however many connect, the
 * threads' counters have the rest of the budget.
 */
final class PrometheusEndpoint implements AutoCloseable {
    static final int MAX_HEAD_BYTES = 8192;
    static final int HEAD_MILLIS = 2000;
    static final int MAX_CONNECTIONS = 32;
    /**
     * How long a connection keeps its place before a newer one may close it to make room: time to send its request
     * for a client that was slow to run on a loaded machine. Meanwhile newer ones wait in the listen queue.
     */
    static final int PLACE_MILLIS = 250;
    /** How often accepting looks again while a place is kept: one may be freed before its time is up. */
    private static final int PLACE_RECHECK_MILLIS = 10;
    /** How long a client may take to read its answer: a scrape of many series on a slow link. */
    private static final int ANSWER_MILLIS = 10_000;
    /** What is read and dropped of a request after its answer, so that closing does not reset the answer away. */
    private static final int DRAIN_BYTES = 64 * 1024;

    private static final int DRAIN_MILLIS = 1000;
    /** The listener, the selector's epoll and wake-up descriptors, and the connection being accepted. */
    private static final int BASE_DESCRIPTORS = 4;
    /** Connections take at most this fraction of the budget: a small fds= share is the counters' first. */
    static final int SHARE_DIVISOR = 8;
    /** How long accepting pauses when accept itself fails (no descriptor left in the process): no busy loop. */
    private static final long ACCEPT_PAUSE_NANOS = 100_000_000L;

    private static final int BACKLOG = 64;
    private static final long CLOSE_MILLIS = 1000;

    private final ListenAddress address;
    private final Supplier<ExportSnapshot> snapshots;
    private final DescriptorBudget budget;
    private final Consumer<AgentNotice> notices;
    private final Thread thread;
    /** In the order they were accepted, the oldest first; only the endpoint's thread touches it. */
    private final Set<Connection> connections = new LinkedHashSet<>();

    private final ByteBuffer drained = ByteBuffer.allocate(4096);
    /** The snapshot {@link #answers} were written from, and its answer in each format asked for so far. */
    private ExportSnapshot answered;

    private final Map<ExpositionFormatWriter, byte[]> answers = new HashMap<>();
    /** How many connections it keeps open at once, as {@link #reserve} found room for; only its thread touches it. */
    private int places;

    private volatile Selector selector;
    private volatile boolean closing;
    /** {@value #PLACE_MILLIS} ms, save in tests, where a loaded host can stall a client longer. */
    private final long placeNanos;

    private PrometheusEndpoint(
            ListenAddress address,
            Supplier<ExportSnapshot> snapshots,
            DescriptorBudget budget,
            Consumer<AgentNotice> notices,
            int placeMillis) {
        this.placeNanos = placeMillis * 1_000_000L;
        this.address = address;
        this.snapshots = snapshots;
        this.budget = budget;
        this.notices = notices;
        this.thread = new Thread(this::serve, "perfpin-prometheus");
        this.thread.setDaemon(true);
    }

    static PrometheusEndpoint start(
            ListenAddress address,
            Supplier<ExportSnapshot> snapshots,
            DescriptorBudget budget,
            Consumer<AgentNotice> notices) {
        return start(address, snapshots, budget, notices, PLACE_MILLIS);
    }

    /** As the other, each connection keeping its place {@code placeMillis} ms. */
    static PrometheusEndpoint start(
            ListenAddress address,
            Supplier<ExportSnapshot> snapshots,
            DescriptorBudget budget,
            Consumer<AgentNotice> notices,
            int placeMillis) {
        PrometheusEndpoint endpoint = new PrometheusEndpoint(address, snapshots, budget, notices, placeMillis);
        endpoint.thread.start();
        return endpoint;
    }

    /** Where a connection is: reading its request head, writing its answer, reading what follows it. */
    private enum Stage {
        HEAD,
        ANSWER,
        DRAIN
    }

    private static final class Connection {
        final SocketChannel channel;
        final SelectionKey key;
        Stage stage = Stage.HEAD;
        ByteBuffer head = ByteBuffer.allocate(MAX_HEAD_BYTES);
        ByteBuffer answer;
        long deadline;
        int drained;

        /** {@code System.nanoTime()} when it was accepted. */
        final long acceptedNanos;

        Connection(SocketChannel channel, SelectionKey key, long acceptedNanos) {
            this.channel = channel;
            this.key = key;
            this.acceptedNanos = acceptedNanos;
            this.deadline = acceptedNanos + HEAD_MILLIS * 1_000_000L;
        }

        /** Whether closing it loses nothing a client waits for: no request yet, or its answer written. */
        boolean idle() {
            return stage != Stage.ANSWER;
        }
    }

    private void serve() {
        places = reserve(budget);
        if (places == 0) {
            refused("no file descriptor is left for it: " + budget.reason());
            return;
        }
        Selector opened = null;
        ServerSocketChannel listener = null;
        try {
            if (places < MAX_CONNECTIONS) {
                notices.accept(AgentNotice.info("serving Prometheus metrics at " + address + " with at most " + places
                        + " connections at once, not " + MAX_CONNECTIONS + ": the rest of perfpin's share of file"
                        + " descriptors (" + budget.budget() + ", agent option fds=) is the counters'"));
            }
            // asked before any class of the client's is linked, and before the port opens (OptionalLibrary)
            String why = OptionalLibrary.unavailable("io.prometheus.metrics.expositionformats.ExpositionFormatWriter");
            if (why != null) {
                throw new IllegalStateException("the Prometheus client: " + why);
            }
            opened = Selector.open();
            listener = address.bind(BACKLOG).getChannel();
            listener.configureBlocking(false);
            SelectionKey accepting = listener.register(opened, SelectionKey.OP_ACCEPT);
            selector = opened;
            if (!closing) {
                serve(opened, listener, accepting);
            }
        } catch (IOException | RuntimeException | Error e) {
            // an Error too: it would reach the application's handler of uncaught exceptions
            try {
                refused(e.getMessage() == null ? e.toString() : e.getMessage());
            } catch (RuntimeException | Error unsaid) {
                // the endpoint ends all the same
            }
        } finally {
            for (Connection connection : new ArrayList<>(connections)) {
                drop(connection);
            }
            closeQuietly(listener);
            closeQuietly(opened);
            budget.giveBack(BASE_DESCRIPTORS + places);
        }
    }

    /**
     * Takes the endpoint's descriptors, all at once: {@value #BASE_DESCRIPTORS} and its places, as many as
     * {@link #MAX_CONNECTIONS} and {@value #SHARE_DIVISOR}th of the budget allow and the budget has room for, at least
     * one.
     *
     * @return its places; 0 when the budget has no room for one, and nothing was taken
     */
    static int reserve(DescriptorBudget budget) {
        long share = Math.max(1, budget.budget() / SHARE_DIVISOR);
        while (true) {
            long room = budget.budget() - budget.held() - BASE_DESCRIPTORS;
            int places = (int) Math.min(Math.min(MAX_CONNECTIONS, share), room);
            if (places < 1) {
                return 0;
            }
            if (budget.take(BASE_DESCRIPTORS + places)) {
                return places;
            }
            // a counter took some meanwhile: look again
        }
    }

    private void serve(Selector selector, ServerSocketChannel listener, SelectionKey accepting) throws IOException {
        long acceptPausedUntil = 0;
        while (!closing) {
            try {
                acceptPausedUntil = round(selector, listener, accepting, acceptPausedUntil);
            } catch (Error e) {
                // no heap for this round's work: said once, and the next round serves as usual
                servingFailed(e);
            } finally {
                selector.selectedKeys().clear();
            }
        }
    }

    /** One round: connections past their deadline closed, then what the selector found ready. */
    private long round(Selector selector, ServerSocketChannel listener, SelectionKey accepting, long acceptPausedUntil)
            throws IOException {
        long now = System.nanoTime();
        long wake = Long.MAX_VALUE;
        for (Connection connection : new ArrayList<>(connections)) {
            if (now - connection.deadline >= 0) {
                drop(connection);
            } else {
                wake = Math.min(wake, connection.deadline - now);
            }
        }
        if (accepting.interestOps() == 0) {
            if (now - acceptPausedUntil >= 0) {
                accepting.interestOps(SelectionKey.OP_ACCEPT);
            } else {
                wake = Math.min(wake, acceptPausedUntil - now);
            }
        }
        selector.select(wake == Long.MAX_VALUE ? 0 : Math.max(1, wake / 1_000_000 + 1));
        long pausedUntil = acceptPausedUntil;
        for (SelectionKey key : selector.selectedKeys()) {
            if (!key.isValid()) {
                continue; // a connection closed to make room, earlier in this round
            }
            if (key == accepting) {
                long pause = accept(selector, listener);
                if (pause > 0) {
                    accepting.interestOps(0);
                    pausedUntil = System.nanoTime() + pause;
                }
            } else {
                Connection connection = (Connection) key.attachment();
                try {
                    serve(connection);
                } catch (IOException | RuntimeException e) {
                    // that connection is gone or misbehaved: the others are served as usual
                    drop(connection);
                } catch (Error e) {
                    answerFailed(connection, e);
                }
            }
        }
        return pausedUntil;
    }

    /**
     * Takes the connections waiting, closing the oldest idle ones to stay within its {@link #places}; a connection
     * beyond them while every open one waits for its answer is closed at once. While the oldest idle one is younger
     * than {@value #PLACE_MILLIS} ms, the others wait in the listen queue instead: a burst of clients that reconnect
     * as soon as they are closed cannot close a scraper's connection before its request came.
     *
     * @return how long accepting should pause, in nanoseconds; 0 for not at all
     */
    private long accept(Selector selector, ServerSocketChannel listener) {
        for (int accepted = 0; accepted < MAX_CONNECTIONS; accepted++) {
            long keepsItsPlace = placeTaken();
            if (keepsItsPlace > 0) {
                return keepsItsPlace;
            }
            SocketChannel channel;
            try {
                channel = listener.accept();
            } catch (IOException e) {
                return ACCEPT_PAUSE_NANOS;
            }
            if (channel == null) {
                return 0;
            }
            if (!makeRoom()) {
                closeQuietly(channel);
                continue;
            }
            Connection connection = null;
            try {
                channel.configureBlocking(false);
                connection =
                        new Connection(channel, channel.register(selector, SelectionKey.OP_READ), System.nanoTime());
                connection.key.attach(connection);
                connections.add(connection);
                serve(connection); // a scraper sends its request with the connection: it is often here already
            } catch (IOException | RuntimeException | Error e) {
                if (connection == null) {
                    closeQuietly(channel);
                } else if (e instanceof Error) {
                    answerFailed(connection, (Error) e);
                } else {
                    drop(connection);
                }
            }
        }
        return 0;
    }

    /**
     * How long, in nanoseconds, until one more connection may be taken: 0 when there is room, or when the connection
     * {@link #makeRoom} would close is one whose answer is written, or one with no request that has had its place
     * {@value #PLACE_MILLIS} ms; else how long that one keeps its place, at most {@value #PLACE_RECHECK_MILLIS} ms, so
     * that a place freed meanwhile (an answer written, a client gone) is taken soon. A connection with no request is
     * read once more before it is given up: one round of accepts can take {@value #MAX_CONNECTIONS} before the round
     * reads any, and a scraper's request that arrived meanwhile is answered, not closed unread. 0 too when every
     * connection waits for its answer: the next one is closed at once ({@link #accept}).
     */
    private long placeTaken() {
        while (connections.size() >= places) {
            Connection oldest = oldestIdle();
            if (oldest == null || oldest.stage != Stage.HEAD) {
                return 0;
            }
            long kept = oldest.acceptedNanos + placeNanos - System.nanoTime();
            if (kept > 0) {
                return Math.min(kept, PLACE_RECHECK_MILLIS * 1_000_000L);
            }
            try {
                readHead(oldest); // its answer, when its request is whole; closed, when its client closed
            } catch (IOException | RuntimeException e) {
                drop(oldest);
            } catch (Error e) {
                answerFailed(oldest, e);
            }
            if (oldest.stage == Stage.HEAD && connections.contains(oldest)) {
                return 0; // idle still, its place had: the one makeRoom closes
            }
        }
        return 0;
    }

    /** Frees a place for one more connection, closing the oldest idle ones if need be ({@link #placeTaken}). */
    private boolean makeRoom() {
        while (connections.size() >= places) {
            Connection oldest = oldestIdle();
            if (oldest == null) {
                return false;
            }
            drop(oldest);
        }
        return true;
    }

    /** The oldest connection whose answer was written, else the oldest that has sent no complete request. */
    private Connection oldestIdle() {
        Connection waiting = null;
        for (Connection connection : connections) {
            if (connection.stage == Stage.DRAIN) {
                return connection;
            }
            if (waiting == null && connection.idle()) {
                waiting = connection;
            }
        }
        return waiting;
    }

    private void serve(Connection connection) throws IOException {
        switch (connection.stage) {
            case HEAD -> readHead(connection);
            case ANSWER -> writeAnswer(connection);
            default -> drain(connection);
        }
    }

    private void readHead(Connection connection) throws IOException {
        ByteBuffer head = connection.head;
        int searchFrom = Math.max(0, head.position() - 3);
        if (connection.channel.read(head) < 0) {
            drop(connection);
            return;
        }
        int end = endOfHead(head.array(), head.position(), searchFrom);
        if (end >= 0) {
            answer(connection, answer(new String(head.array(), 0, end + 2, StandardCharsets.ISO_8859_1)));
        } else if (!head.hasRemaining()) {
            answer(
                    connection,
                    response("431 Request Header Fields Too Large", "text/plain", "request head too large\n"));
        }
    }

    private void answer(Connection connection, byte[] answer) throws IOException {
        connection.stage = Stage.ANSWER;
        connection.head = null;
        connection.answer = ByteBuffer.wrap(answer);
        connection.deadline = System.nanoTime() + ANSWER_MILLIS * 1_000_000L;
        writeAnswer(connection);
    }

    private void writeAnswer(Connection connection) throws IOException {
        connection.channel.write(connection.answer);
        if (connection.answer.hasRemaining()) {
            connection.key.interestOps(SelectionKey.OP_WRITE);
            return;
        }
        connection.channel.shutdownOutput();
        connection.stage = Stage.DRAIN;
        connection.answer = null;
        connection.deadline = System.nanoTime() + DRAIN_MILLIS * 1_000_000L;
        connection.key.interestOps(SelectionKey.OP_READ);
    }

    /**
     * Reads what the client still sends (a body, the rest of a head too large) once it has its answer, at most
     * {@value #DRAIN_BYTES} bytes for at most {@value #DRAIN_MILLIS} ms: a socket closed with unread bytes is reset,
     * and a reset can reach the client before it read the answer.
     */
    private void drain(Connection connection) throws IOException {
        for (int n = 0; n >= 0 && connection.drained < DRAIN_BYTES; ) {
            drained.clear();
            n = connection.channel.read(drained);
            if (n == 0) {
                return;
            }
            connection.drained += Math.max(n, 0);
        }
        drop(connection);
    }

    private void drop(Connection connection) {
        if (connections.remove(connection)) {
            connection.key.cancel();
            closeQuietly(connection.channel);
        }
    }

    /**
     * An Error as a scrape was answered (no heap left to write the answer, a snapshot that could not be had): that
     * connection is closed, the failure said once, and the endpoint serves the next scrape, rather than end for good
     * and hand the Error to the application's handler of uncaught exceptions.
     */
    private void answerFailed(Connection connection, Error e) {
        drop(connection);
        try {
            notices.accept(AgentNotice.failure(
                    "answering a Prometheus scrape at " + address + " failed", e, "the next scrape is answered"));
        } catch (RuntimeException | Error unsaid) {
            // serving goes on
        }
    }

    /**
     * Says a round's failure once, and throws nothing, whatever saying it meets, the making of its text included: a
     * literal's string is made the first time its code runs, which a full heap refuses. The endpoint serves on.
     */
    private void servingFailed(Error e) {
        try {
            notices.accept(
                    AgentNotice.failure("serving Prometheus metrics at " + address + " failed", e, "it goes on"));
        } catch (RuntimeException | Error unsaid) {
            // serving goes on
        }
    }

    private void refused(String why) {
        if (!closing) {
            notices.accept(AgentNotice.refused(
                    "cannot serve Prometheus metrics at " + address + ": " + why + "; counting goes on"));
        }
    }

    private byte[] answer(String head) throws IOException {
        String[] requestLine =
                head.substring(0, Math.max(head.indexOf("\r\n"), 0)).split(" ", -1);
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
            return response("400 Bad Request", "text/plain", "not an HTTP/1 request\n");
        } else if (!path(requestLine[1]).equals("/metrics")) {
            return response("404 Not Found", "text/plain", "perfpin serves GET /metrics only\n");
        } else if (!requestLine[0].equals("GET")) {
            return response("405 Method Not Allowed\r\nAllow: GET", "text/plain", "perfpin serves GET /metrics only\n");
        }
        return metrics(PrometheusExposition.writerFor(header(head, "accept")));
    }

    /** The last snapshot's answer in that format, written once per snapshot: scrapes between two ticks share it. */
    private byte[] metrics(ExpositionFormatWriter writer) throws IOException {
        ExportSnapshot snapshot = snapshots.get();
        if (snapshot != answered) {
            answers.clear();
            answered = snapshot;
        }
        byte[] answer = answers.get(writer);
        if (answer == null) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            writer.write(body, PrometheusExposition.of(snapshot));
            answer = response("200 OK", writer.getContentType(), body.toByteArray());
            answers.put(writer, answer);
        }
        return answer;
    }

    private static int endOfHead(byte[] bytes, int length, int from) {
        for (int i = from; i + 4 <= length; i++) {
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
            if (colon > 0
                    && line.substring(0, colon).strip().toLowerCase(Locale.ROOT).equals(name)) {
                return line.substring(colon + 1).strip();
            }
        }
        return null;
    }

    private static byte[] response(String status, String contentType, String body) {
        return response(status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] response(String status, String contentType, byte[] body) {
        byte[] head = ("HTTP/1.1 " + status + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + body.length
                        + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        byte[] response = new byte[head.length + body.length];
        System.arraycopy(head, 0, response, 0, head.length);
        System.arraycopy(body, 0, response, head.length, body.length);
        return response;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable != null) {
            try {
                closeable.close();
            } catch (Exception e) {
                // closing a socket or selector: nothing to lose
            }
        }
    }

    /** Stops answering and lets go of the address and every connection; the thread ends. */
    @Override
    public void close() {
        closing = true;
        Selector waiting = selector;
        if (waiting != null) {
            waiting.wakeup();
        }
        try {
            thread.join(CLOSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
