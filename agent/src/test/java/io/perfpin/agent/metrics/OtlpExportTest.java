package io.perfpin.agent.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.export.ExportedThreads;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.stats.AgentNotice;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The OTLP export's thread and its schedule, to a port where nothing listens. */
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
}
