package io.perfpin.agent;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An OTLP/HTTP receiver on a loopback port, standing in for an OpenTelemetry collector (none is packaged where
 * this project installs from): it decodes each {@code POST /v1/metrics} with OpenTelemetry's own protobuf classes
 * and keeps the requests. Or one that hangs: it takes each request's head and never answers, until closed.
 */
final class OtlpReceiver implements AutoCloseable {
    private final HttpServer server;
    private final List<ExportMetricsServiceRequest> requests = new CopyOnWriteArrayList<>();
    private final List<String> contentTypes = new CopyOnWriteArrayList<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicInteger unanswered = new AtomicInteger();

    private OtlpReceiver(boolean answers) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/v1/metrics", exchange -> {
            if (!answers) {
                unanswered.incrementAndGet();
                try {
                    closed.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    exchange.close();
                }
                return;
            }
            try (InputStream body = exchange.getRequestBody()) {
                contentTypes.add(String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")));
                requests.add(ExportMetricsServiceRequest.parseFrom(body.readAllBytes()));
                exchange.sendResponseHeaders(200, -1);
            } catch (IOException | RuntimeException e) {
                exchange.sendResponseHeaders(400, -1);
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    static OtlpReceiver start() throws IOException {
        return new OtlpReceiver(true);
    }

    /** A collector that hangs: each request is taken and never answered, until {@link #close}. */
    static OtlpReceiver hanging() throws IOException {
        return new OtlpReceiver(false);
    }

    /** How many requests a hanging receiver took and left unanswered. */
    int unanswered() {
        return unanswered.get();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<ExportMetricsServiceRequest> requests() {
        return List.copyOf(requests);
    }

    List<String> contentTypes() {
        return List.copyOf(contentTypes);
    }

    /** Waits for a request that {@code wanted} accepts, and returns it. */
    ExportMetricsServiceRequest await(Predicate<ExportMetricsServiceRequest> wanted, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (ExportMetricsServiceRequest request : requests) {
                if (wanted.test(request)) {
                    return request;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no request with " + what + " in 60 s; " + requests.size() + " requests, the last "
                + (requests.isEmpty() ? "none" : requests.get(requests.size() - 1)));
    }

    /** The metric of that name in a request; null when it has none. */
    static Metric metric(ExportMetricsServiceRequest request, String name) {
        for (ResourceMetrics resource : request.getResourceMetricsList()) {
            for (ScopeMetrics scope : resource.getScopeMetricsList()) {
                for (Metric metric : scope.getMetricsList()) {
                    if (metric.getName().equals(name)) {
                        return metric;
                    }
                }
            }
        }
        return null;
    }

    /** The data points of a sum or gauge whose attributes include all of {@code attributes}. */
    static List<NumberDataPoint> points(Metric metric, Map<String, String> attributes) {
        List<NumberDataPoint> points = new ArrayList<>();
        if (metric == null) {
            return points;
        }
        List<NumberDataPoint> all = metric.hasSum()
                ? metric.getSum().getDataPointsList()
                : metric.getGauge().getDataPointsList();
        for (NumberDataPoint point : all) {
            if (attributes.entrySet().stream()
                    .allMatch(a -> a.getValue().equals(attribute(point.getAttributesList(), a.getKey())))) {
                points.add(point);
            }
        }
        return points;
    }

    /** The value of the one data point of that metric with those attributes; NaN when there is none. */
    static double value(ExportMetricsServiceRequest request, String metric, Map<String, String> attributes) {
        List<NumberDataPoint> points = points(metric(request, metric), attributes);
        if (points.size() != 1) {
            return Double.NaN;
        }
        NumberDataPoint point = points.get(0);
        return point.hasAsInt() ? point.getAsInt() : point.getAsDouble();
    }

    /** A string or integer attribute's value as text; null when absent. */
    static String attribute(List<KeyValue> attributes, String key) {
        for (KeyValue kv : attributes) {
            if (kv.getKey().equals(key)) {
                return kv.getValue().hasIntValue()
                        ? String.valueOf(kv.getValue().getIntValue())
                        : kv.getValue().getStringValue();
            }
        }
        return null;
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
    }
}
