package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VirtualThreadGroupsTest {
    /** Virtual thread vt-i of task-clock (i + 1) ms, as the agent writes its final record. */
    private static String virtual(int i) {
        ThreadReport report = ThreadReport.fromValues(
                "vt-" + i,
                ThreadRecords.VIRTUAL_TID,
                100 + i,
                "",
                -1,
                Map.of("task-clock", (i + 1) * 1_000_000L),
                Map.of("task-clock", 1.0),
                Map.of(),
                Map.of());
        return ThreadRecords.virtualToJson(1000, report, 3, new int[] {41, 42});
    }

    @Test
    void aRecordingOfVirtualThreadsReadsAsOneGroupWithItsTotalsAndPercentiles(@TempDir Path dir) throws Exception {
        List<String> lines = new ArrayList<>();
        ThreadReport platform = ThreadReport.fromValues(
                "main",
                12,
                1,
                "0-1",
                5_000_000,
                Map.of("task-clock", 7L),
                Map.of("task-clock", 1.0),
                Map.of(),
                Map.of());
        lines.add(ThreadRecords.toJson(ThreadRecords.THREAD, 1000, platform));
        for (int i = 0; i < 100; i++) {
            lines.add(virtual(i));
        }
        Path file = dir.resolve("run.jsonl");
        Files.write(file, lines);
        Recording recording = Recording.read(file);
        assertEquals(101, recording.threads().size(), "each virtual thread read back");
        assertTrue(recording.threads().get(1).isVirtual());
        assertFalse(recording.threads().get(0).isVirtual());

        List<ThreadRecord> rows = VirtualThreadGroups.folded(recording.threads());
        assertEquals(
                List.of("main", "vt (100 virtual threads)", "vt p50 of one", "vt p99 of one"),
                rows.stream().map(r -> r.report().name()).toList());
        assertEquals(5050 * 1_000_000L, rows.get(1).report().counters().get("task-clock"), "the sum of 1..100 ms");
        assertEquals(-1, rows.get(1).report().wallNanos(), "their wall time is not known");
        assertEquals(50 * 1_000_000L, rows.get(2).report().counters().get("task-clock"));
        assertEquals(99 * 1_000_000L, rows.get(3).report().counters().get("task-clock"));
        assertTrue(rows.stream().allMatch(ThreadRecord::isFinal));

        List<ThreadRecord> busiest = VirtualThreadGroups.folded(recording.threads(), 2);
        assertEquals(
                List.of("main", "vt (100 virtual threads)", "vt p50 of one", "vt p99 of one", "vt-99", "vt-98"),
                busiest.stream().map(r -> r.report().name()).toList(),
                "the two busiest on request");

        List<ThreadRecord> alone =
                VirtualThreadGroups.folded(recording.threads().subList(0, 2));
        assertEquals(
                List.of("main", "vt-0"),
                alone.stream().map(r -> r.report().name()).toList(),
                "a group of one is shown as its thread");
    }

    @Test
    void onlyAVirtualThreadsRecordHasNoTid() {
        String platform = virtual(1).replace("\"virtual\":true,", "");
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(platform)))
                .getMessage()
                .contains("'tid' is -1"));
    }
}
