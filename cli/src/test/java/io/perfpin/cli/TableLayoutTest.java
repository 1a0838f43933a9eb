package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.perfpin.report.ThreadReport;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableLayoutTest {
    private static final ThreadReport GROUP = report("vm", 0, 900L);
    private static final ThreadReport GROUP_P50 = report("  p50", 0, 1L).withFollows();
    private static final ThreadReport BUSY = report("busy", 30, 500L);
    private static final ThreadReport IDLE = report("idle", 10, 5L);
    private static final ThreadReport UNCOUNTED = report("uncounted", 20, null);
    private static final List<ThreadReport> ROWS = List.of(GROUP, GROUP_P50, IDLE, UNCOUNTED, BUSY);

    @Test
    void aValueColumnSortsLargestFirstThenRowsWithoutOneAndSumsOfThreadsLastWithTheRowsThatFollowThem() {
        assertEquals(List.of(BUSY, IDLE, UNCOUNTED, GROUP, GROUP_P50), sorted("task-clock"));
    }

    @Test
    void namesAndTidsSortAscendingWithSumsOfThreadsLast() {
        assertEquals(List.of(BUSY, IDLE, UNCOUNTED, GROUP, GROUP_P50), sorted("thread"));
        assertEquals(List.of(IDLE, UNCOUNTED, BUSY, GROUP, GROUP_P50), sorted("tid"));
    }

    @Test
    void withoutASortTheRowsStayAsGivenAndTopKeepsTheFirst() {
        assertEquals(ROWS, TableLayout.ALL.sorted(ROWS));
        assertEquals(
                List.of(BUSY, IDLE),
                TableLayout.ALL.sortedBy("task-clock").withTop(2).sorted(ROWS));
    }

    private static List<ThreadReport> sorted(String column) {
        return TableLayout.ALL.sortedBy(column).sorted(ROWS);
    }

    private static ThreadReport report(String name, int tid, Long taskClock) {
        Map<String, Long> counters = taskClock == null ? Map.of() : Map.of("task-clock", taskClock);
        return ThreadReport.fromValues(name, tid, 1, "0-1", 1_000_000_000L, counters, Map.of(), Map.of(), Map.of());
    }
}
