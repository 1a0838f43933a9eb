package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.CounterSnapshots;
import io.perfpin.event.EventList;
import io.perfpin.event.EventLookup;
import io.perfpin.event.EventParser;
import io.perfpin.event.EventSpec;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class HintsTest {
    private static final OptionalLong NOT_READ = OptionalLong.empty();
    private static final long SECOND = 1_000_000_000L;

    /** Intel's page-walk event as libpfm4 encodes it for Skylake; this machine's lookup may have none. */
    private final EventParser parser = new EventParser(Paths.get("/"), name -> {
        if (!name.equals("DTLB_LOAD_MISSES.WALK_ACTIVE")) {
            return EventLookup.NOT_WIRED.encode(name);
        }
        return new EventParser(Paths.get("/"), EventLookup.NOT_WIRED).parse("r1001008");
    });

    @Test
    void pageWalksOverATenthOfCyclesSuggestLargePages() {
        Map<String, Long> tlb = Map.of(
                "dTLB-loads",
                400_000_000L,
                "dTLB-load-misses",
                9_000_000L,
                "iTLB-load-misses",
                20_000L,
                "instructions",
                1_500_000_000L,
                "cycles",
                1_000_000_000L,
                "DTLB_LOAD_MISSES.WALK_ACTIVE",
                142_000_000L);
        ThreadReport walking = report("io-1", "0-3", "tlb", tlb);
        assertEquals(
                List.of("thread 'io-1': page walks take 14.2% of cycles (walk-cycles-share 0.142 > 0.10):"
                        + " try -XX:+UseLargePages (or -XX:+UseTransparentHugePages)"),
                texts(walking, false, NOT_READ));

        ThreadReport few = report("io-1", "0-3", "tlb", with(tlb, "DTLB_LOAD_MISSES.WALK_ACTIVE", 50_000_000L));
        assertEquals(List.of(), texts(few, false, NOT_READ));
    }

    @Test
    void aThreadOnOneCpuThatMigratedWasMovedByWhatChangedItsAffinity() {
        Map<String, Long> sched = sched(2_000_000L, 3, 4);
        assertEquals(
                List.of("thread 'order-matcher': migrated 4 times while pinned to CPU 3 (cpu-migrations 4 > 0):"
                        + " its affinity changed while counted: another tool (taskset, a pool pinning its own threads)"
                        + " or a cgroup cpuset change moved it; pin it in one place"),
                texts(report("order-matcher", "3", "sched", sched), false, OptionalLong.of(0)));
        assertEquals(
                List.of(),
                texts(report("order-matcher", "0-3", "sched", sched), false, NOT_READ),
                "not pinned: migrating is its right");
        assertEquals(
                List.of("thread 'order-matcher': migrated 4 times while pinned to CPUs 2-3"
                        + " (cpu-migrations 4 > 0): the scheduler moves it among the CPUs of its pin: pin it to one CPU"
                        + " (a one-CPU list or isolated) to keep it on its caches"),
                texts(report("order-matcher", "2-3", "sched", sched), true, OptionalLong.of(0)));
    }

    /**
     * perfpin's own pin of a running thread moves it once: that move is no hint, and the moves beyond it are never
     * said to be another tool's.
     */
    @Test
    void aThreadPerfpinPinnedGetsNoHintForThePinsOwnMoveAndIsNotSaidToBeMovedByAnotherTool() {
        ThreadReport once =
                report("order-matcher", "3", "sched", sched(2_000_000L, 3, 1)).withPin(PinSource.PERFPIN);
        assertEquals(List.of(), texts(once, false, NOT_READ), "the pin's own move");
        assertEquals(List.of(), texts(once, true, NOT_READ), "the pin's own move, placed by a rule");

        ThreadReport moved =
                report("order-matcher", "3", "sched", sched(2_000_000L, 3, 3)).withPin(PinSource.PERFPIN);
        List<String> hints = texts(moved, false, NOT_READ);
        assertEquals(
                List.of("thread 'order-matcher': migrated 3 times while pinned to CPU 3 (cpu-migrations 3 > 1):"
                        + " perfpin's pin moves a running thread once, onto CPU 3; the other moves mean its affinity"
                        + " also changed while counted (taskset, a cgroup cpuset change)"),
                hints);
        assertTrue(hints.stream().noneMatch(h -> h.contains("another tool")), hints.toString());
    }

    @Test
    void oneMoveOrOnePreemptionReadsAsEnglish() {
        assertEquals(
                List.of("thread 'order-matcher': migrated 1 time while pinned to CPU 3 (cpu-migrations 1 > 0):"
                        + " its affinity changed while counted: another tool (taskset, a pool pinning its own threads)"
                        + " or a cgroup cpuset change moved it; pin it in one place"),
                texts(report("order-matcher", "3", "sched", sched(2_000_000L, 3, 1)), false, OptionalLong.of(0)));
        assertEquals(
                List.of("thread 'io-1': preempted 1 time on CPU 3 (nonvoluntary_ctxt_switches 1 > 0): the CPU"
                        + " is not isolated: boot with isolcpus=3 nohz_full=3 and pin the thread there (placement"
                        + " isolated)"),
                texts(report("io-1", "3", "sched", sched(300_000_000L, 40, 0)), false, OptionalLong.of(1)));
        assertTrue(texts(report("io-1", "3", "sched", sched(980_000_000L, 1, 0)), false, NOT_READ)
                .get(0)
                .contains("switched out 1 time on CPU 3 "));
    }

    @Test
    void aPinnedThreadPreemptedRunsOnACpuThatIsNotIsolated() {
        String isolate = ": the CPU is not isolated: boot with isolcpus=3 nohz_full=3 and pin the thread there"
                + " (placement isolated)";
        // /proc says: 12 preemptions among its 40 switches.
        ThreadReport sleeper = report("io-1", "3", "sched", sched(300_000_000L, 40, 0));
        assertEquals(
                List.of("thread 'io-1': preempted 12 times on CPU 3 (nonvoluntary_ctxt_switches 12 > 0)" + isolate),
                texts(sleeper, false, OptionalLong.of(12)));
        assertEquals(List.of(), texts(sleeper, false, OptionalLong.of(0)), "all 40 were its own blocking");
        assertEquals(List.of(), texts(sleeper, false, NOT_READ), "at 30% of a CPU its switches may be its own");

        ThreadReport spinner = report("io-1", "3", "sched", sched(980_000_000L, 40, 0));
        assertEquals(
                List.of("thread 'io-1': switched out 40 times on CPU 3 while it ran 98.0% of the time, so"
                        + " mostly preempted (context-switches 40 > 0 at cpu-utilisation 0.98 >= 0.90)" + isolate),
                texts(spinner, false, NOT_READ));
    }

    @Test
    void lowIpcWithManyCacheMissesIsMemoryBound() {
        Map<String, Long> cache = Map.of(
                "cycles",
                1_000_000_000L,
                "instructions",
                320_000_000L,
                "cache-references",
                30_000_000L,
                "cache-misses",
                2_400_000L,
                "L1-dcache-loads",
                110_000_000L,
                "L1-dcache-load-misses",
                21_000_000L,
                "LLC-loads",
                9_000_000L,
                "LLC-load-misses",
                4_000_000L);
        assertEquals(
                List.of("thread 'graph-walker': memory bound: 0.32 instructions per cycle with 12.50 cache"
                        + " misses per 1000 instructions (ipc 0.32 < 0.50, LLC-mpki 12.50 > 5.00): it waits on memory:"
                        + " make its data smaller or contiguous (fewer pointers to chase), and keep it on the NUMA node"
                        + " that holds its memory"),
                texts(report("graph-walker", "0-3", "ipc,cache", cache), false, NOT_READ));

        Map<String, Long> fewMisses = with(with(cache, "LLC-load-misses", 320_000L), "cache-misses", 400_000L);
        assertEquals(
                List.of(),
                texts(report("graph-walker", "0-3", "ipc,cache", fewMisses), false, NOT_READ),
                "low IPC without misses is another story (dependencies, divisions)");
        Map<String, Long> fast = with(cache, "instructions", 1_500_000_000L);
        assertEquals(List.of(), texts(report("graph-walker", "0-3", "ipc,cache", fast), false, NOT_READ));
    }

    private static Map<String, Long> sched(long taskClock, long switches, long migrations) {
        return Map.of(
                "task-clock",
                taskClock,
                "context-switches",
                switches,
                "cpu-migrations",
                migrations,
                "page-faults",
                11L,
                "minor-faults",
                11L,
                "major-faults",
                0L);
    }

    private static Map<String, Long> with(Map<String, Long> values, String event, long value) {
        Map<String, Long> changed = new java.util.HashMap<>(values);
        changed.put(event, value);
        return changed;
    }

    /** Counted throughout over one second of wall time, by the real ThreadReport arithmetic. */
    private ThreadReport report(String name, String cpus, String list, Map<String, Long> byEvent) {
        EventList events = EventList.parse(list, parser);
        List<EventSpec> specs = events.events();
        long[] raw = new long[specs.size()];
        for (int i = 0; i < raw.length; i++) {
            String event = specs.get(i).name().equals("r1001008")
                    ? "DTLB_LOAD_MISSES.WALK_ACTIVE"
                    : specs.get(i).name();
            raw[i] = byEvent.get(event);
        }
        return ThreadReport.of(
                name, 4242, 31, cpus, events, CounterSnapshots.of(raw, SECOND, SECOND), List.of(), SECOND);
    }

    private static List<String> texts(ThreadReport report, boolean pinnedByRule, OptionalLong preempted) {
        return Hints.of(report, pinnedByRule, preempted).stream()
                .map(Hint::toString)
                .toList();
    }
}
