package io.perfpin.stats;

import static io.perfpin.stats.StatsFileTest.MILLISECOND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.CounterSnapshots;
import io.perfpin.report.PinSource;
import io.perfpin.report.StatsWindows;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The windows a viewer shows ({@link io.perfpin.report.StatsWindows}, here beside the file it reads): two threads
 * written by {@link StatsFile} with known counts and read times, a frame after each of the agent's samples.
 */
class StatsWindowsTest {
    /** No such process: the last CPU stays unknown. */
    private static final long NO_PID = StatsLayout.MAX_PID;

    @TempDir
    Path dir;

    @Test
    void eachFrameShowsTheCountsSinceTheLastOverTheAgentsTimeAndTheyAddUpToTheTotals() throws Exception {
        Path file = dir.resolve("windows.stats");
        try (StatsFile stats = StatsFile.create(file, 1, 0, 500 * MILLISECOND, 4, 3, 2);
                StatsFileReader reader = StatsFileReader.open(file)) {
            int[] both = {stats.eventIndex("task-clock"), stats.eventIndex("context-switches")};
            Published a = new Published(
                    101,
                    1,
                    "a",
                    "0",
                    StatsLayout.PIN_PERFPIN,
                    1_000_000,
                    0,
                    0,
                    CounterSnapshots.of(new long[] {400_000, 4}, 1, 1),
                    both);
            int slotA = stats.claimSlot(a.readBetween(1_500_000, 1_500_100));
            stats.sampled(1_500_000, 1);
            StatsWindows windows = new StatsWindows(NO_PID);
            StatsSnapshot first = reader.snapshot();
            StatsWindows.Frame frame = windows.next(first);
            assertTrue(frame.first() && frame.spanNanos() < 0, "the first frame starts at each enrolment");
            ThreadReport since = only(frame.threads(), "a");
            assertEquals(400_000L, since.counters().get("task-clock"));
            assertEquals(500_100L, since.wallNanos(), "from its enrolment to just after the read");
            assertEquals(PinSource.PERFPIN, since.pin());
            assertEquals(ThreadState.RUNNING, since.state());
            assertFalse(windows.hasNew(reader.snapshot()), "no sample since: nothing to show");

            CounterSnapshots.fill(a.counts(), new long[] {900_000, 9}, 2, 2);
            stats.publish(slotA, a.readBetween(2_000_000, 2_000_100));
            Published b = new Published(
                    102,
                    2,
                    "b",
                    "0",
                    StatsLayout.PIN_NONE,
                    1_800_000,
                    0,
                    0,
                    CounterSnapshots.of(new long[] {100_000}, 1, 1),
                    new int[] {both[0]});
            int slotB = stats.claimSlot(b.readBetween(2_000_200, 2_000_300));
            stats.sampled(2_000_000, 2);
            frame = windows.next(reader.snapshot());
            assertEquals(1, frame.samples());
            assertEquals(500_000, frame.spanNanos());
            ThreadReport window = only(frame.threads(), "a");
            assertEquals(500_000L, window.counters().get("task-clock"));
            assertEquals(5L, window.counters().get("context-switches"));
            assertEquals(500_100L, window.wallNanos(), "from just before the earlier read to just after this one");
            assertTrue(window.metrics().get("cpu-utilisation") <= 1.0);
            ThreadReport newcomer = only(frame.threads(), "b");
            assertEquals(100_000L, newcomer.counters().get("task-clock"));
            assertEquals(200_300L, newcomer.wallNanos(), "since its enrolment");
            assertEquals("this thread does not count it", newcomer.unsupported().get("context-switches"));

            CounterSnapshots.fill(a.counts(), new long[] {1_000_000, 10}, 3, 3);
            stats.finish(slotA, a.readBetween(2_100_000, 2_100_050), true);
            stats.sampled(2_100_000, 3);
            frame = windows.next(reader.snapshot());
            assertEquals(
                    List.of("a"),
                    frame.threads().stream().map(ThreadReport::name).toList(),
                    "b was not sampled again: not shown");
            ThreadReport last = frame.threads().get(0);
            assertEquals(100_000L, last.counters().get("task-clock"));
            assertEquals(ThreadState.RUNNING, last.state(), "it still ran when counting stopped");

            stats.sampled(2_600_000, 4);
            assertTrue(windows.next(reader.snapshot()).threads().isEmpty(), "a finished thread's window is shown once");

            List<ThreadReport> totals = windows.totals(reader.snapshot());
            assertEquals(1_000_000L, only(totals, "a").counters().get("task-clock"), "400k + 500k + 100k");
            assertEquals(100_000L, only(totals, "b").counters().get("task-clock"));
            assertEquals(
                    "(1 thread running at exit)",
                    StatsWindows.finishedSum(reader.snapshot(), "running at exit")
                            .name(),
                    "its row says it still ran: the sum says so too");

            stats.finish(slotB, b.readBetween(2_700_000, 2_700_050), false);
            stats.sampled(2_700_000, 5);
            assertEquals(
                    "(2 threads: 1 ended, 1 running at exit)",
                    StatsWindows.finishedSum(reader.snapshot(), "running at exit")
                            .name(),
                    "in the words of the rows it sums, each state counted");
        }
    }

    private static ThreadReport only(List<ThreadReport> reports, String name) {
        List<ThreadReport> named =
                reports.stream().filter(r -> r.name().equals(name)).toList();
        assertEquals(
                1,
                named.size(),
                name + " in " + reports.stream().map(ThreadReport::name).toList());
        return named.get(0);
    }
}
