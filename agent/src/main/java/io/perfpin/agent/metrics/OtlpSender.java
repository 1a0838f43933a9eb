package io.perfpin.agent.metrics;

import io.opentelemetry.common.ComponentLoader;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.HttpResponse;
import io.opentelemetry.sdk.common.export.HttpSender;
import io.opentelemetry.sdk.common.export.HttpSenderConfig;
import io.opentelemetry.sdk.common.export.HttpSenderProvider;
import io.opentelemetry.sdk.common.export.MessageWriter;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.stats.AgentNotice;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Sends what OpenTelemetry's OTLP/HTTP exporter encodes with one blocking HTTP/1.1 POST per export, on the
 * thread that exports, over a connection it closes after the answer. The SDK's own senders do not fit an agent:
 * the JDK's {@code HttpClient} starts threads of its own (which the agent would count as the application's) and
 * keeps a selector open, and OkHttp brings a Kotlin runtime. Bounded: one connection at a time, out of the
 * agent's descriptor budget, connected within {@value #CONNECT_MILLIS} ms, and the whole exchange (connecting,
 * sending, reading the answer) within the exporter's timeout, one deadline, however slowly a collector reads or
 * answers; an answer of at most {@value #MAX_RESPONSE_BYTES} bytes. No retry: the next export, an interval later,
 * carries the cumulative totals again, so nothing is lost while a collector is down, and nothing piles up. The
 * first failure is said once. The socket is a channel's, so interrupting the thread that sends closes it: that is
 * how closing the export ({@link OtlpExport#close}) stops waiting on a collector that does not answer.
 */
final class OtlpSender implements HttpSender {
    static final int CONNECT_MILLIS = 2000;
    static final int MAX_RESPONSE_BYTES = 64 * 1024;
    /**
     * How often a request the collector does not read is offered again: a blocking write has no timeout, and a
     * selector to wait with would cost the budget two descriptors more.
     */
    private static final long WRITE_RETRY_MILLIS = 10;

    private final OtlpEndpoint endpoint;
    private final HttpSenderConfig config;
    private final DescriptorBudget budget;
    private final Consumer<AgentNotice> notices;
    private volatile boolean failedOnce;

    private OtlpSender(
            OtlpEndpoint endpoint, HttpSenderConfig config, DescriptorBudget budget, Consumer<AgentNotice> notices) {
        this.endpoint = endpoint;
        this.config = config;
        this.budget = budget;
        this.notices = notices;
    }

    /** What the exporter's builder loads its sender with: this sender, and no other component. */
    static ComponentLoader loader(OtlpEndpoint endpoint, DescriptorBudget budget, Consumer<AgentNotice> notices) {
        HttpSenderProvider provider = config -> new OtlpSender(endpoint, config, budget, notices);
        return new ComponentLoader() {
            @Override
            @SuppressWarnings("unchecked")
            public <T> Iterable<T> load(Class<T> component) {
                return component == HttpSenderProvider.class ? List.of((T) provider) : List.of();
            }
        };
    }

    @Override
    public void send(MessageWriter message, Consumer<HttpResponse> onResponse, Consumer<Throwable> onError) {
        Response response;
        try {
            response = post(message);
        } catch (IOException | RuntimeException e) {
            if (!Thread.currentThread().isInterrupted()) {
                // interrupted, it was the export's close that stopped it, and said so
                failed(e.getMessage() == null ? e.toString() : e.getMessage());
            }
            onError.accept(e);
            return;
        }
        if (response.status / 100 != 2) {
            failed("it answered " + response.status + " " + response.message);
        }
        onResponse.accept(response);
    }

    private void failed(String why) {
        if (!failedOnce) {
            failedOnce = true;
            notices.accept(AgentNotice.refused("cannot export metrics to the OTLP receiver at " + endpoint + ": " + why
                    + "; counting goes on, and each export interval tries again"));
        }
    }

    private Response post(MessageWriter message) throws IOException {
        if (!budget.take(1)) {
            throw new IOException("no file descriptor is left for it: " + budget.reason());
        }
        long timeoutMillis = Math.max(1, config.getTimeout().toMillis());
        Deadline deadline = new Deadline(System.nanoTime() + timeoutMillis * 1_000_000L, timeoutMillis);
        try (SocketChannel channel = SocketChannel.open()) {
            Socket socket = channel.socket();
            socket.connect(new InetSocketAddress(endpoint.uri().getHost(), endpoint.port()), (int)
                    Math.min(CONNECT_MILLIS, deadline.leftMillis()));
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(head(message.getContentLength()).getBytes(StandardCharsets.ISO_8859_1));
            message.writeMessage(request);
            write(channel, ByteBuffer.wrap(request.toByteArray()), deadline);
            return Response.read(socket, deadline);
        } finally {
            budget.giveBack(1);
        }
    }

    private String head(int contentLength) {
        StringBuilder head = new StringBuilder("POST ")
                .append(endpoint.uri().getRawPath())
                .append(
                        endpoint.uri().getRawQuery() == null
                                ? ""
                                : "?" + endpoint.uri().getRawQuery())
                .append(" HTTP/1.1\r\nHost: ")
                .append(endpoint.uri().getRawAuthority())
                .append("\r\nContent-Type: ")
                .append(config.getContentType())
                .append("\r\nContent-Length: ")
                .append(contentLength)
                .append("\r\nConnection: close\r\n");
        for (Map.Entry<String, List<String>> header :
                config.getHeadersSupplier().get().entrySet()) {
            for (String value : header.getValue()) {
                head.append(header.getKey()).append(": ").append(value).append("\r\n");
            }
        }
        return head.append("\r\n").toString();
    }

    /** Writes the whole request without blocking, offering what the collector has not taken until the deadline. */
    private static void write(SocketChannel channel, ByteBuffer request, Deadline deadline) throws IOException {
        channel.configureBlocking(false);
        while (request.hasRemaining()) {
            if (channel.write(request) == 0) {
                deadline.leftMillis();
                try {
                    Thread.sleep(WRITE_RETRY_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // the export's close: send() says nothing
                    throw new InterruptedIOException("the export closed");
                }
            }
        }
        channel.configureBlocking(true);
    }

    /** The end of one exchange: each wait of it is bounded by what is left, not by the timeout afresh. */
    private record Deadline(long nanos, long timeoutMillis) {
        /** What is left, at least 1 ms; past the deadline, the failure. */
        int leftMillis() throws SocketTimeoutException {
            long left = nanos - System.nanoTime();
            if (left <= 0) {
                throw passed();
            }
            return (int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000));
        }

        SocketTimeoutException passed() {
            return new SocketTimeoutException("it did not take the metrics and answer within " + timeoutMillis + " ms");
        }
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }

    /** An HTTP/1.1 answer, read up to the end of the connection (the request asked to close it). */
    private static final class Response implements HttpResponse {
        private final int status;
        private final String message;
        private final byte[] body;

        private Response(int status, String message, byte[] body) {
            this.status = status;
            this.message = message;
            this.body = body;
        }

        static Response read(Socket socket, Deadline deadline) throws IOException {
            byte[] bytes = readBounded(socket, deadline);
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            int headEnd = text.indexOf("\r\n\r\n");
            String[] statusLine =
                    text.substring(0, Math.max(text.indexOf("\r\n"), 0)).split(" ", 3);
            if (headEnd < 0
                    || statusLine.length < 2
                    || !statusLine[0].startsWith("HTTP/1.")
                    || !statusLine[1].matches("[0-9]{3}")) {
                throw new IOException("not an HTTP/1 answer: '"
                        + text.substring(0, Math.min(text.length(), 40)).replaceAll("[^ -~]", "?") + "'");
            }
            byte[] body = Arrays.copyOfRange(bytes, headEnd + 4, bytes.length);
            if (text.substring(0, headEnd).toLowerCase(Locale.ROOT).contains("\r\ntransfer-encoding: chunked")) {
                body = new byte[0]; // the answer's detail, which only a failure's message would quote
            }
            return new Response(Integer.parseInt(statusLine[1]), statusLine.length > 2 ? statusLine[2] : "", body);
        }

        /** Reads to the end of the connection, each read waiting only what is left before the deadline. */
        private static byte[] readBounded(Socket socket, Deadline deadline) throws IOException {
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            while (true) {
                socket.setSoTimeout(deadline.leftMillis());
                int n;
                try {
                    n = in.read(buffer);
                } catch (SocketTimeoutException e) {
                    throw deadline.passed(); // it waited what was left
                }
                if (n < 0) {
                    break;
                }
                if (read.size() + n > MAX_RESPONSE_BYTES) {
                    throw new IOException("an answer longer than " + MAX_RESPONSE_BYTES + " bytes");
                }
                read.write(buffer, 0, n);
            }
            return read.toByteArray();
        }

        @Override
        public int getStatusCode() {
            return status;
        }

        @Override
        public String getStatusMessage() {
            return message;
        }

        @Override
        public byte[] getResponseBody() {
            return body;
        }
    }
}
