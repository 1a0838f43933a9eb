package io.perfpin.event;

import static io.perfpin.event.DerivedMetric.perKiloInstruction;
import static io.perfpin.event.DerivedMetric.perSecond;
import static io.perfpin.event.DerivedMetric.ratio;
import static io.perfpin.event.DerivedMetric.share;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * perfpin's built-in presets. Intel event names are libpfm4's (checked with {@code LIBPFM_FORCE_PMU=skl} and
 * {@code icl}, where they encode as in the comments); Sapphire Rapids renamed some, which then report unsupported.
 */
public final class Presets {
    /** DTLB_LOAD_MISSES.WALK_ACTIVE: cycles with at least one load page walk in progress (skl: 0x1001008). */
    static final String DTLB_WALK_ACTIVE = "DTLB_LOAD_MISSES.WALK_ACTIVE";
    /** MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM: loads served by a modified line in another core's cache (skl: 0x4d2). */
    static final String XSNP_HITM = "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM";
    /** MACHINE_CLEARS.MEMORY_ORDERING: pipeline flushes for a memory-ordering conflict (skl: 0x2c3). */
    static final String MEMORY_ORDERING_CLEARS = "MACHINE_CLEARS.MEMORY_ORDERING";
    /** OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DEMAND_RFO: cycles waiting for ownership of a line (skl: 0x1000460). */
    static final String DEMAND_RFO_CYCLES = "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DEMAND_RFO";
    /** LD_BLOCKS_PARTIAL.ADDRESS_ALIAS: loads blocked by a store matching in the low 12 address bits (skl: 0x107). */
    static final String ADDRESS_ALIAS = "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS";

    public static final Preset IPC = new Preset(
            "ipc",
            "instructions retired per cycle and its inverse",
            List.of("cycles", "instructions"),
            Set.of(),
            List.of(
                    ratio("ipc", "instructions per cycle", "instructions", "cycles", 1),
                    ratio("cpi", "cycles per instruction", "cycles", "instructions", 1)));

    public static final Preset CACHE = new Preset(
            "cache",
            "cache misses: the CPU's preferred cache event pair, L1 data loads and last-level cache loads",
            List.of(
                    "cache-references",
                    "cache-misses",
                    "instructions",
                    "L1-dcache-loads",
                    "L1-dcache-load-misses",
                    "LLC-loads",
                    "LLC-load-misses"),
            Set.of(),
            List.of(
                    share("cache-miss-ratio", "cache-misses per cache-reference", "cache-misses", "cache-references"),
                    perKiloInstruction("cache-mpki", "cache-misses per 1000 instructions", "cache-misses"),
                    share(
                            "L1d-miss-ratio",
                            "L1 data load misses per L1 data load",
                            "L1-dcache-load-misses",
                            "L1-dcache-loads"),
                    perKiloInstruction(
                            "L1d-mpki", "L1 data load misses per 1000 instructions", "L1-dcache-load-misses"),
                    share(
                            "LLC-miss-ratio",
                            "last-level cache load misses per LLC load",
                            "LLC-load-misses",
                            "LLC-loads"),
                    perKiloInstruction(
                            "LLC-mpki", "last-level cache load misses per 1000 instructions", "LLC-load-misses")));

    public static final Preset TLB = new Preset(
            "tlb",
            "TLB misses, and on Intel the share of cycles spent walking page tables for loads",
            List.of("dTLB-loads", "dTLB-load-misses", "iTLB-load-misses", "instructions", "cycles", DTLB_WALK_ACTIVE),
            Set.of(DTLB_WALK_ACTIVE),
            List.of(
                    share(
                            "dTLB-miss-ratio",
                            "data TLB load misses per data TLB load",
                            "dTLB-load-misses",
                            "dTLB-loads"),
                    perKiloInstruction("dTLB-mpki", "data TLB load misses per 1000 instructions", "dTLB-load-misses"),
                    perKiloInstruction("iTLB-mpki", "instruction TLB misses per 1000 instructions", "iTLB-load-misses"),
                    share(
                            "walk-cycles-share",
                            "share of cycles with a load page walk in progress (Intel only)",
                            DTLB_WALK_ACTIVE,
                            "cycles")));

    public static final Preset BRANCH = new Preset(
            "branch",
            "branch mispredictions",
            List.of("branches", "branch-misses", "instructions"),
            Set.of(),
            List.of(
                    share("branch-miss-ratio", "mispredicted branches per branch", "branch-misses", "branches"),
                    perKiloInstruction("branch-mpki", "mispredicted branches per 1000 instructions", "branch-misses")));

    public static final Preset SCHED = new Preset(
            "sched",
            "what the scheduler and the memory manager did to the thread; software events, available everywhere",
            List.of("task-clock", "context-switches", "cpu-migrations", "page-faults", "minor-faults", "major-faults"),
            Set.of(),
            List.of(
                    share(
                            "cpu-utilisation",
                            "share of wall time the thread ran on a CPU",
                            "task-clock",
                            DerivedMetric.WALL_NANOS),
                    perSecond("cs-per-sec", "context switches per wall-clock second", "context-switches"),
                    perSecond(
                            "migrations-per-sec", "migrations to another CPU per wall-clock second", "cpu-migrations"),
                    perSecond("faults-per-sec", "page faults per wall-clock second", "page-faults")));

    public static final Preset SHARING = new Preset(
            "sharing",
            "cache lines bouncing between cores, true or false sharing (Intel only)",
            List.of(XSNP_HITM, MEMORY_ORDERING_CLEARS, DEMAND_RFO_CYCLES, "instructions", "cycles"),
            Set.of(XSNP_HITM, MEMORY_ORDERING_CLEARS, DEMAND_RFO_CYCLES),
            List.of(
                    perKiloInstruction(
                            "hitm-pki",
                            "loads hitting a line modified by another core, per 1000" + " instructions",
                            XSNP_HITM),
                    perKiloInstruction(
                            "memory-ordering-clears-pki",
                            "memory-ordering machine clears per 1000" + " instructions",
                            MEMORY_ORDERING_CLEARS),
                    share(
                            "rfo-wait-share",
                            "share of cycles with a demand read-for-ownership outstanding",
                            DEMAND_RFO_CYCLES,
                            "cycles")));

    public static final Preset ALIASING = new Preset(
            "aliasing",
            "4K aliasing: loads falsely blocked by a store 4 KiB apart (Intel only)",
            List.of(ADDRESS_ALIAS, "instructions"),
            Set.of(ADDRESS_ALIAS),
            List.of(perKiloInstruction(
                    "4k-alias-pki", "loads blocked by 4K aliasing per 1000 instructions", ADDRESS_ALIAS)));

    private static final List<Preset> ALL = List.of(IPC, CACHE, TLB, BRANCH, SCHED, SHARING, ALIASING);
    private static final List<DerivedMetric> METRICS = distinctMetrics();

    private Presets() {}

    /** Loops, here and in {@link #find}: the agent's premain runs them, where each lambda's class is made first. */
    private static List<DerivedMetric> distinctMetrics() {
        Map<String, DerivedMetric> byName = new LinkedHashMap<>();
        for (Preset preset : ALL) {
            for (DerivedMetric metric : preset.metrics()) {
                byName.putIfAbsent(metric.name(), metric);
            }
        }
        return List.copyOf(byName.values());
    }

    public static List<Preset> all() {
        return ALL;
    }

    /** The preset of that name, ignoring case. */
    public static Optional<Preset> find(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        for (Preset preset : ALL) {
            if (preset.name().equals(key)) {
                return Optional.of(preset);
            }
        }
        return Optional.empty();
    }

    /** The metric of that name in any preset. */
    public static Optional<DerivedMetric> metric(String name) {
        return ALL.stream()
                .flatMap(p -> p.metrics().stream())
                .filter(m -> m.name().equals(name))
                .findFirst();
    }

    /** Every preset's metrics, each name once, in the order of the presets. */
    public static List<DerivedMetric> metrics() {
        return METRICS;
    }

    public static List<String> names() {
        List<String> names = new ArrayList<>();
        ALL.forEach(p -> names.add(p.name()));
        return names;
    }
}
