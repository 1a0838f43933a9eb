package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReportFormatTest {
    private static final ThreadRecord TOUCHER = record(
            ThreadRecords.THREAD,
            "page-toucher",
            2452,
            Map.of("task-clock", 45_485_000L, "page-faults", 16_390L),
            Map.of("task-clock", 1.0, "page-faults", 0.5),
            Map.of("faults-per-sec", 360_000.25),
            Map.of("cycles", "no hardware PMU counts this here"));
    private static final ThreadRecord ODD = record(
            ThreadRecords.SAMPLE,
            "io, \"fast\"",
            2453,
            Map.of("task-clock", 871_000L),
            Map.of("task-clock", 1.0),
            Map.of(),
            Map.of("cycles", "no PMU", "instructions", "no PMU"));

    @Test
    void csvHasAHeaderAndARowPerThreadWithCoverageBesideEachEventAndTheReasonsLast() {
        assertEquals(
                List.of(
                        "name,tid,javaId,cpus,pin,task-clock,task-clock:coverage,page-faults,page-faults:coverage,"
                                + "cpu-utilisation,faults-per-sec,unsupported,source,type,time,wallNanos,state,pmu,nameCut",
                        "page-toucher,2452,7,0-1,none,45485000,1,16390,0.5,,360000.25,cycles: no hardware PMU counts"
                                + " this here,,thread,5,1000000000,,,",
                        "\"io, \"\"fast\"\"\",2453,7,0-1,none,871000,1,,,,,cycles: no PMU; instructions: no"
                                + " PMU,,sample,5,1000000000,,,"),
                ReportFormat.CSV.render(List.of(TOUCHER, ODD)));
    }

    @Test
    void csvDecimalsAreWhatBigDecimalWritesPlainWithoutTrailingZeros() {
        List<Double> values = new ArrayList<>(List.of(
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                100.0,
                1e-3,
                9.99e-4,
                1e7,
                1.2345678e7,
                1e22,
                1e-300,
                Double.MIN_VALUE,
                Double.MAX_VALUE,
                360_000.25,
                0.1 + 0.2,
                2.0 / 3,
                -123.456));
        Random random = new Random(23);
        for (int i = 0; i < 20_000; i++) {
            values.add(Double.longBitsToDouble(random.nextLong()));
            values.add(random.nextDouble() * Math.pow(10, random.nextInt(24) - 8));
            values.add((double) random.nextInt(1_000_000) / 8);
        }
        for (double value : values) {
            String expected = Double.isNaN(value)
                    ? ""
                    : Double.isInfinite(value)
                            ? value > 0 ? "inf" : "-inf"
                            : BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
            assertEquals(expected, ReportCsv.decimal(value), () -> Double.toString(value));
        }
    }

    @Test
    void aCsvFieldWithHalfACharacterHasTheReplacementCharacterAndIsQuotedOnlyForWhatNeedsIt() {
        assertEquals(
                "a\ufffdb,\"x\ufffd,\",\ud83d\ude00", ReportCsv.row(List.of("a\ud800b", "x\udc00,", "\ud83d\ude00")));
    }

    @Test
    void valuesFromProcAreMarkedSoInEveryFormat() {
        ThreadRecord fromProc =
                new ThreadRecord(ThreadRecords.THREAD, 5, TOUCHER.report().withSources(Map.of("task-clock", "proc")));

        List<String> csv = ReportFormat.CSV.render(List.of(fromProc));
        assertTrue(
                csv.get(1)
                        .endsWith(",cycles: no hardware PMU counts this here,task-clock: proc,thread,5,"
                                + "1000000000,,,"),
                csv.get(1));

        List<String> table = ReportFormat.TABLE.render(List.of(fromProc));
        assertTrue(
                table.get(0).matches("thread +tid +cpus +task-clock \\(proc\\) +page-faults +faults-per-sec"),
                table.get(0));
        assertTrue(
                table.contains("(proc): the kernel does not permit this event to perfpin here (perf_event_paranoid),"
                        + " so its value is the scheduler's own count in /proc/<pid>/task/<tid>: exact, at no cost"
                        + " to the thread"),
                String.join("\n", table));

        String json = ReportFormat.JSON.render(List.of(fromProc)).get(0);
        assertTrue(json.endsWith(",\"source\":{\"task-clock\":\"proc\"}}"), json);
        assertEquals(
                Map.of("task-clock", "proc"),
                ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(json))
                        .report()
                        .sources());
        assertTrue(
                !ReportFormat.JSON.render(List.of(TOUCHER)).get(0).contains("source"),
                "no source where every value came from perf_event_open");
    }

    @Test
    void theTableSaysWhichThreadsAreShownFromTheirLastSample() {
        List<String> lines = ReportFormat.TABLE.render(List.of(TOUCHER, ODD));
        assertTrue(lines.get(0).startsWith("thread "), lines.get(0));
        assertEquals(
                "No final record, shown from the last live sample (the thread still ran when the recording"
                        + " ended): io, \"fast\" (tid 2453)",
                lines.get(lines.size() - 1));
    }

    @Test
    void jsonIsTheRecordsAsThreadRecordsWritesThem() {
        assertEquals(
                List.of(ThreadRecords.toJson(ThreadRecords.THREAD, 5, TOUCHER.report())),
                ReportFormat.JSON.render(List.of(TOUCHER)));
    }

    @Test
    void aFormatIsNamedInAnyCaseAndAnUnknownOneIsRefusedWithTheChoices() {
        assertEquals(ReportFormat.CSV, ReportFormat.parse("CSV"));
        assertEquals(
                "bad format 'xml': expected table, csv, json or html",
                assertThrows(IllegalArgumentException.class, () -> ReportFormat.parse("xml"))
                        .getMessage());
    }

    private static ThreadRecord record(
            String type,
            String name,
            int tid,
            Map<String, Long> counters,
            Map<String, Double> coverage,
            Map<String, Double> metrics,
            Map<String, String> unsupported) {
        return new ThreadRecord(
                type,
                5,
                ThreadReport.fromValues(
                        name,
                        tid,
                        7,
                        "0-1",
                        1_000_000_000L,
                        ordered(counters, "task-clock", "page-faults"),
                        ordered(coverage, "task-clock", "page-faults"),
                        metrics,
                        ordered(unsupported, "cycles", "instructions")));
    }

    private static <V> Map<String, V> ordered(Map<String, V> values, String... order) {
        Map<String, V> ordered = new LinkedHashMap<>();
        for (String key : order) {
            if (values.containsKey(key)) {
                ordered.put(key, values.get(key));
            }
        }
        return ordered;
    }
}
