package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.CounterSnapshots;
import io.perfpin.counter.EventFailure;
import io.perfpin.event.EventList;
import io.perfpin.event.EventLookup;
import io.perfpin.event.EventParser;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadReportTest {
    private final EventParser parser = new EventParser(Paths.get("/"), EventLookup.NOT_WIRED);

    @Test
    void countedEventsCarryValueAndCoverageAndMetricsAreDerivedFromThem() {
        EventList events = EventList.parse("ipc,task-clock", parser);
        assertEquals(
                List.of("cycles", "instructions", "task-clock"),
                events.events().stream().map(e -> e.name()).collect(java.util.stream.Collectors.toList()));
        CounterSnapshot counts = CounterSnapshots.of(new long[] {1_000, 1_500, 2_000_000}, 100, 100);
        ThreadReport report = ThreadReport.of("worker", 42, 7, "0-1", events, counts, List.of(), 4_000_000);

        assertEquals(1_500L, report.counters().get("instructions"));
        assertEquals(1.5, report.metrics().get("ipc"), 1e-12);
        assertEquals(1.0, report.coverage().get("cycles"));
        // Every preset's metric whose inputs were counted, whatever the events were asked as: task-clock alone
        // gives sched's cpu-utilisation.
        assertEquals(0.5, report.metrics().get("cpu-utilisation"), 1e-12);
        assertEquals(
                "{\"type\":\"thread\",\"time\":5,\"name\":\"worker\",\"tid\":42,\"javaId\":7,"
                        + "\"cpus\":\"0-1\",\"pin\":\"none\","
                        + "\"wallNanos\":4000000,\"counters\":{\"cycles\":1000,\"instructions\":1500,"
                        + "\"task-clock\":2000000},"
                        + "\"coverage\":{\"cycles\":1,\"instructions\":1,\"task-clock\":1},"
                        + "\"metrics\":{\"ipc\":1.5,\"cpi\":0.6666666666666666,\"cpu-utilisation\":0.5},"
                        + "\"unsupported\":{}}",
                ThreadRecords.toJson(ThreadRecords.THREAD, 5, report));
    }

    /**
     * An event asked with modifiers gives the metric with the same modifiers; a colon followed by anything else
     * (a tracepoint's name, a modifier perfpin does not know) gives none.
     */
    @Test
    void metricsOfEventsWithModifiersCarryTheModifiers() {
        Map<String, Long> counters = new java.util.LinkedHashMap<>();
        counters.put("cycles", 10L);
        counters.put("instructions", 5L);
        counters.put("cycles:k", 100L);
        counters.put("instructions:k", 200L);
        counters.put("cycles:uh", 4L);
        counters.put("instructions:uh", 2L);
        counters.put("sched:sched_switch", 3L);
        counters.put("cycles:x", 1L);
        counters.put("instructions:", 1L);

        Map<String, Double> metrics = ThreadReport.metrics(counters, -1);

        assertEquals(0.5, metrics.get("ipc"), 1e-12);
        assertEquals(2.0, metrics.get("ipc:k"), 1e-12);
        assertEquals(0.5, metrics.get("ipc:uh"), 1e-12);
        assertEquals(List.of("ipc", "cpi", "ipc:k", "cpi:k", "ipc:uh", "cpi:uh"), List.copyOf(metrics.keySet()));
    }

    @Test
    void refusedEventsAreListedWithTheirReasonAndTheirMetricsLeftOut() {
        EventList events = EventList.parse("ipc,page-faults", parser);
        CounterSnapshot faults = new CounterSnapshot(3);
        CounterSnapshots.set(faults, 2, 9, 10, 10);
        List<EventFailure> refused = List.of(
                new EventFailure(events.events().get(0), 0, 2, "no PMU"),
                new EventFailure(events.events().get(1), 1, 2, "no PMU"));
        ThreadReport report = ThreadReport.of("t \"q\"\n", 1, -1, "0", events, faults, refused, -1);

        assertEquals(List.of("page-faults"), List.copyOf(report.counters().keySet()));
        assertEquals("no PMU", report.unsupported().get("cycles"));
        assertEquals(List.of(), List.copyOf(report.metrics().keySet()));
        String json = ThreadRecords.toJson(ThreadRecords.SAMPLE, 1, report);
        // Read back by perfpin's own reader: the name's quote and newline survive, each refused event keeps why.
        Map<?, ?> read = (Map<?, ?>) JsonReader.parse(json);
        assertEquals("t \"q\"\n", read.get("name"), json);
        assertEquals(Map.of("cycles", "no PMU", "instructions", "no PMU"), read.get("unsupported"), json);
    }
}
