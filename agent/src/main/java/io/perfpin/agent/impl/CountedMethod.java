package io.perfpin.agent.impl;

import io.perfpin.counter.ValueHistogram;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Backends;
import io.perfpin.report.MethodRecord;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One {@code @Counted} method: its name, its events, and one recorder per thread that called it. Each
 * recorder is written by its thread alone, without locks or allocation; {@link #summary} merges them, so a
 * live summary may lag a call in flight by one event, and the final one, taken at exit or detach, is exact.
 */
final class CountedMethod {
    final String name;
    final EventList events;
    private final ConcurrentLinkedQueue<Recorder> recorders = new ConcurrentLinkedQueue<>();
    private Map<String, String> unsupported = Map.of();
    private long publishedCalls = -1;

    CountedMethod(String name, EventList events) {
        this.name = name;
        this.events = events;
    }

    Recorder newRecorder() {
        Recorder recorder = new Recorder(events.events().size());
        recorders.add(recorder);
        return recorder;
    }

    void unsupported(Map<String, String> reasons) {
        if (!reasons.isEmpty()) {
            unsupported = Map.copyOf(reasons);
        }
    }

    /** Per-thread measurements of one method; only its thread records. */
    static final class Recorder {
        volatile long calls;
        final long[] totals;
        final boolean[] counted;
        final ValueHistogram[] histograms;

        Recorder(int events) {
            totals = new long[events];
            counted = new boolean[events];
            histograms = new ValueHistogram[events];
            for (int e = 0; e < events; e++) {
                histograms[e] = new ValueHistogram();
            }
        }
    }

    /**
     * The summary as a JSON-lines record: calls, and per counted event the total, the mean per call, p50 and
     * p99; null when {@code onlyIfChanged} and no call completed since the last summary.
     */
    MethodRecord summary(String type, long epochMillis, boolean onlyIfChanged) {
        List<EventSpec> specs = events.events();
        long calls = 0;
        for (Recorder r : recorders) {
            calls += r.calls; // read first: what the calls counted is written before them
        }
        if (onlyIfChanged && calls == publishedCalls) {
            return null; // the sampler asks every tick: nothing is merged for a method nobody called
        }
        long[] totals = new long[specs.size()];
        boolean[] counted = new boolean[specs.size()];
        ValueHistogram[] merged = new ValueHistogram[specs.size()];
        for (int e = 0; e < specs.size(); e++) {
            merged[e] = new ValueHistogram();
        }
        for (Recorder r : recorders) {
            for (int e = 0; e < specs.size(); e++) {
                totals[e] += r.totals[e];
                counted[e] |= r.counted[e];
                r.histograms[e].addTo(merged[e]);
            }
        }
        publishedCalls = calls;
        Map<String, Long> sums = new LinkedHashMap<>();
        Map<String, Double> means = new LinkedHashMap<>();
        Map<String, Long> p50 = new LinkedHashMap<>();
        Map<String, Long> p99 = new LinkedHashMap<>();
        for (int e = 0; e < specs.size(); e++) {
            if (counted[e]) {
                String event = specs.get(e).name();
                sums.put(event, totals[e]);
                means.put(event, calls == 0 ? 0.0 : (double) totals[e] / calls);
                p50.put(event, merged[e].valueAt(0.50));
                p99.put(event, merged[e].valueAt(0.99));
            }
        }
        return new MethodRecord(
                type, epochMillis, name, calls, sums, means, p50, p99, unsupported, Backends.simulatedPmu());
    }
}
