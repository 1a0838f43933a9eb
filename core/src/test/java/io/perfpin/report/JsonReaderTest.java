package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

class JsonReaderTest {
    private final EventParser parser = new EventParser(Paths.get("/"), EventLookup.NOT_WIRED);

    @Test
    void aRecordThreadRecordsWroteReadsBackToTheSameReport() {
        EventList events = EventList.parse("ipc,sched", parser);
        CounterSnapshot counts =
                CounterSnapshots.of(new long[] {0, 0, 45_485_000, 33, 1, 16_390, 16_390, 0}, 200_000_000, 100_000_000);
        List<EventFailure> refused = List.of(
                new EventFailure(events.events().get(0), 0, 2, "no hardware PMU counts this here"),
                new EventFailure(events.events().get(1), 1, 2, "no PMU"));
        ThreadReport written =
                ThreadReport.of("io \"1\"\t\u00e9\u2603", 2452, 17, "0-1", events, counts, refused, 60_000_000);
        String json = ThreadRecords.toJson(ThreadRecords.SAMPLE, 1_795_000_000_123L, written);

        ThreadRecord read = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(json));

        assertEquals(ThreadRecords.SAMPLE, read.type());
        assertEquals(1_795_000_000_123L, read.epochMillis());
        ThreadReport r = read.report();
        assertEquals(written.name(), r.name());
        assertEquals(2452, r.tid());
        assertEquals(17, r.javaId());
        assertEquals("0-1", r.cpus());
        assertEquals(60_000_000, r.wallNanos());
        assertEquals(written.counters(), r.counters());
        assertEquals(written.coverage(), r.coverage());
        assertEquals(written.metrics(), r.metrics());
        assertEquals(written.unsupported(), r.unsupported());
        assertEquals(
                List.copyOf(written.counters().keySet()),
                List.copyOf(r.counters().keySet()),
                "file order");
        assertEquals(json, ThreadRecords.toJson(read.type(), read.epochMillis(), r), "writes back the same line");
    }

    @Test
    void valuesOfEveryKind() {
        assertEquals(
                Map.of("a", List.of(1L, -2.5, 1e3, true, false, "x/\u0041\n")),
                JsonReader.parse(" {\"a\" : [1, -2.5, 1E3, true, false, \"x\\/\\u0041\\n\"]} "));
        assertEquals(null, JsonReader.parse("null"));
        assertEquals(Long.MAX_VALUE, JsonReader.parse("9223372036854775807"));
        assertEquals(1e19, JsonReader.parse("10000000000000000000"));
    }

    @Test
    void anythingButStrictJsonIsRefusedSayingWhereAndWhat() {
        String cut = "{\"type\":\"thread\",\"name\":\"io-1\",\"tid\":24";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(cut));
        assertEquals("expected '}' at character " + (cut.length() + 1) + ", found the end", e.getMessage());
        for (String bad : List.of(
                "",
                "{",
                "{\"a\":1,}",
                "[1,]",
                "{'a':1}",
                "01",
                "1.",
                "-",
                ".5",
                "1e",
                "tru",
                "\"a",
                "\"\\x\"",
                "\"\\u12g4\"",
                "\"tab\there\"",
                "{\"a\":1}{",
                "{\"a\":1,\"a\":2}",
                "{a:1}",
                "NaN",
                "[1 2]")) {
            assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(bad), bad);
        }
        String deep = "[".repeat(100) + "]".repeat(100);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(deep))
                .getMessage()
                .contains("nesting"));
    }

    @Test
    void aRecordWithoutAFieldOrWithOneOfTheWrongKindNamesIt() {
        String missing = "{\"type\":\"thread\",\"time\":1,\"name\":\"t\",\"javaId\":1,\"cpus\":\"0\",\"wallNanos\":1,"
                + "\"counters\":{},\"coverage\":{},\"metrics\":{},\"unsupported\":{}}";
        assertEquals(
                "no field 'tid'",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(missing)))
                        .getMessage());
        String wrong = missing.replace("\"javaId\":1", "\"javaId\":1,\"tid\":\"7\"");
        assertEquals(
                "field 'tid' is not a whole number",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(wrong)))
                        .getMessage());
        String fractional = missing.replace("\"counters\":{}", "\"counters\":{\"page-faults\":1.5}")
                .replace("\"javaId\":1", "\"javaId\":1,\"tid\":7");
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(fractional)))
                .getMessage()
                .contains("'counters' holds 'page-faults': 1.5, expected whole numbers"));
    }
}
