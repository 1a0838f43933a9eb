package io.perfpin.report;

import io.perfpin.cpu.CpuSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * What a thread's numbers suggest, each hint firing when one of these thresholds is crossed:
 * <ul>
 *   <li>page walks: {@code walk-cycles-share} above {@link #WALK_CYCLES_SHARE} (Intel's tlb preset);</li>
 *   <li>a pinned thread (allowed on one CPU, or placed by a pin rule) with {@code cpu-migrations} above 0;</li>
 *   <li>a pinned thread preempted: {@code nonvoluntary_ctxt_switches} above 0 when /proc could tell;
 *       otherwise {@code context-switches} above 0 while {@code cpu-utilisation} was at least
 *       {@link #BUSY_UTILISATION}, a thread that ran that much having had no time to block, so its
 *       switches were mostly preemptions;</li>
 *   <li>memory bound: {@code ipc} below {@link #LOW_IPC} with {@code cache-mpki} or {@code LLC-mpki} above
 *       {@link #HIGH_MPKI}.</li>
 * </ul>
 */
public final class Hints {
    /** A tenth of all cycles spent walking page tables is far beyond what huge pages leave (well under 1%). */
    public static final double WALK_CYCLES_SHARE = 0.10;
    /**
     * Below 0.5 instructions per cycle a modern core, able to retire 4 or more, idles most of its cycles.
     */
    public static final double LOW_IPC = 0.5;
    /**
     * A last-level miss costs some 100 to 300 cycles: at 5 per 1000 instructions that is 0.5 to 1.5 cycles of
     * stall per instruction, enough on its own to hold IPC under {@link #LOW_IPC}.
     */
    public static final double HIGH_MPKI = 5;
    /** A thread on a CPU 90% of the wall time that was switched out was mostly preempted, not blocking. */
    public static final double BUSY_UTILISATION = 0.9;

    private Hints() {}

    /**
     * @param pinnedByRule          whether a pin rule placed the thread (a one-CPU affinity counts as pinned
     *                              whatever placed it)
     * @param involuntarySwitches   the thread's nonvoluntary context switches over the same time as the report,
     *                              from /proc, when it could be read
     */
    public static List<Hint> of(ThreadReport report, boolean pinnedByRule, OptionalLong involuntarySwitches) {
        List<Hint> hints = new ArrayList<>();
        String name = report.name();
        Double walks = report.metrics().get("walk-cycles-share");
        if (walks != null && walks > WALK_CYCLES_SHARE) {
            hints.add(new Hint(
                    name,
                    "page walks take " + percent(walks) + " of cycles",
                    "walk-cycles-share " + decimal(walks) + " > " + decimal(WALK_CYCLES_SHARE),
                    "try -XX:+UseLargePages (or -XX:+UseTransparentHugePages)"));
        }
        CpuSet cpus = cpus(report.cpus());
        if (pinned(cpus, pinnedByRule, report.pin())) {
            pinnedHints(report, cpus, cpus.size() == 1, involuntarySwitches, hints);
        }
        Double ipc = report.metrics().get("ipc");
        String missMetric = worse(report, "LLC-mpki", "cache-mpki");
        if (ipc != null && ipc < LOW_IPC && missMetric != null) {
            double mpki = report.metrics().get(missMetric);
            hints.add(new Hint(
                    name,
                    "memory bound: " + decimal(ipc) + " instructions per cycle with " + decimal(mpki)
                            + " cache misses per 1000 instructions",
                    "ipc " + decimal(ipc) + " < " + decimal(LOW_IPC) + ", " + missMetric + " " + decimal(mpki) + " > "
                            + decimal(HIGH_MPKI),
                    "it waits on memory: make its data smaller or contiguous (fewer pointers to chase), and keep it"
                            + " on the NUMA node that holds its memory"));
        }
        return hints;
    }

    /**
     * Whether a thread with these CPUs and pins gets the hints of a pinned thread, the only ones that look at its
     * nonvoluntary context switches: a caller that reads those from /proc need not for any other.
     */
    public static boolean pinned(CpuSet cpus, boolean pinnedByRule, PinSource pin) {
        return cpus.size() == 1 || pinnedByRule || pin != PinSource.NONE;
    }

    private static void pinnedHints(
            ThreadReport report, CpuSet cpus, boolean oneCpu, OptionalLong involuntary, List<Hint> hints) {
        String name = report.name();
        // A list perfpin did not write is quoted as it is.
        String where = cpus.isEmpty() ? "CPUs " + report.cpus() : cpus.inWords();
        Long migrations = report.counters().get("cpu-migrations");
        // perfpin's own pin of a thread that already ran moves it once, when it next runs: that move is no finding.
        long ownMove = report.pin() == PinSource.PERFPIN ? 1 : 0;
        if (migrations != null && migrations > ownMove) {
            String advice;
            if (!oneCpu) {
                advice = "the scheduler moves it among the CPUs of its pin: pin it to one CPU (a one-CPU list or"
                        + " isolated) to keep it on its caches";
            } else if (ownMove > 0) {
                advice = "perfpin's pin moves a running thread once, onto " + where + "; the other moves mean its"
                        + " affinity also changed while counted (taskset, a cgroup cpuset change)";
            } else {
                advice = "its affinity changed while counted: another tool (taskset, a pool pinning its own threads)"
                        + " or a cgroup cpuset change moved it; pin it in one place";
            }
            hints.add(new Hint(
                    name,
                    "migrated " + times(migrations) + " while pinned to " + where,
                    "cpu-migrations " + migrations + " > " + ownMove,
                    advice));
        }
        String isolate = "the CPU is not isolated: boot with isolcpus=" + cpusOrList(cpus) + " nohz_full="
                + cpusOrList(cpus) + " and pin the thread there (placement isolated)";
        if (involuntary.isPresent()) {
            long switches = involuntary.getAsLong();
            if (switches > 0) {
                hints.add(new Hint(
                        name,
                        "preempted " + times(switches) + " on " + where,
                        "nonvoluntary_ctxt_switches " + switches + " > 0",
                        isolate));
            }
            return;
        }
        Long switches = report.counters().get("context-switches");
        Double utilisation = report.metrics().get("cpu-utilisation");
        if (switches != null && switches > 0 && utilisation != null && utilisation >= BUSY_UTILISATION) {
            hints.add(new Hint(
                    name,
                    "switched out " + times(switches) + " on " + where + " while it ran " + percent(utilisation)
                            + " of the time, so mostly preempted",
                    "context-switches " + switches + " > 0 at cpu-utilisation " + decimal(utilisation) + " >= "
                            + decimal(BUSY_UTILISATION),
                    isolate));
        }
    }

    /** The larger of two miss rates above {@link #HIGH_MPKI}, or null when neither is. */
    private static String worse(ThreadReport report, String first, String second) {
        Double a = report.metrics().get(first);
        Double b = report.metrics().get(second);
        String worse = a == null ? second : b == null || a >= b ? first : second;
        Double value = report.metrics().get(worse);
        return value != null && value > HIGH_MPKI ? worse : null;
    }

    private static CpuSet cpus(String list) {
        try {
            return list.isEmpty() ? CpuSet.EMPTY : CpuSet.parseList(list);
        } catch (IllegalArgumentException e) {
            return CpuSet.EMPTY; // not a list perfpin wrote: nothing to conclude from it
        }
    }

    private static String cpusOrList(CpuSet cpus) {
        return cpus.isEmpty() ? "<cpus>" : cpus.toString();
    }

    /** A count of times as English says it: 1 time, 2 times. */
    private static String times(long count) {
        return count + (count == 1 ? " time" : " times");
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.1f%%", share * 100);
    }

    /** Below 1 up to three decimals and at least two (0.142, 0.10), above two (12.50): as thresholds are written. */
    private static String decimal(double value) {
        return String.format(Locale.ROOT, value < 1 ? "%.3f" : "%.2f", value).replaceAll("(\\.\\d\\d)0$", "$1");
    }
}
