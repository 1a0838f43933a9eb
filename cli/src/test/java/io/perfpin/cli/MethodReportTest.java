package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.MethodRecord;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** @Counted methods in a recording: the final record wins over live ones, in each format. */
class MethodReportTest {
    @Test
    void reportShowsEachMethodPerCallInEveryFormat(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("run.jsonl");
        ThreadReport main = ThreadReport.fromValues(
                "main",
                100,
                1,
                "0-1",
                1_000_000L,
                Map.of("page-faults", 10L),
                Map.of("page-faults", 1.0),
                Map.of(),
                Map.of());
        MethodRecord live = new MethodRecord(
                MethodRecord.SAMPLE,
                1,
                "a.B.touch(int, long)",
                3,
                Map.of("page-faults", 768L),
                Map.of("page-faults", 256.0),
                Map.of("page-faults", 256L),
                Map.of("page-faults", 256L),
                Map.of(),
                null);
        MethodRecord last = new MethodRecord(
                MethodRecord.FINAL,
                2,
                "a.B.touch(int, long)",
                20,
                Map.of("page-faults", 5134L),
                Map.of("page-faults", 256.7),
                Map.of("page-faults", 256L),
                Map.of("page-faults", 264L),
                Map.of("cycles", "no hardware PMU counts this here"),
                null);
        Files.write(file, List.of(ThreadRecords.toJson(ThreadRecords.THREAD, 3, main), live.toJson(), last.toJson()));

        CliRun table = CliRun.capture(() -> Perfpin.run("report", file.toString()));
        assertEquals(0, table.code, table.err);
        assertTrue(
                table.out.matches("(?s).*a\\.B\\.touch\\(int, long\\) +20 +page-faults +5,134 +256\\.7 +256 +264.*"),
                table.out);
        assertTrue(table.out.contains("a.B.touch(int, long) cycles: no hardware PMU counts this here"), table.out);

        CliRun csv = CliRun.capture(() -> Perfpin.run("report", file.toString(), "--format", "csv"));
        assertTrue(
                csv.out.contains(
                        "method,calls,event,total,per call,p50,p99,pmu\n\"a.B.touch(int, long)\",20,page-faults,"
                                + "5134,256.700,256,264,\n"),
                csv.out);

        CliRun json = CliRun.capture(() -> Perfpin.run("report", file.toString(), "--format", "json"));
        assertTrue(json.out.contains(last.toJson()), json.out);
        assertTrue(!json.out.contains(live.toJson()), "the live record gave way to the final one");
    }
}
