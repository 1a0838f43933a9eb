package io.perfpin.event;

import io.perfpin.nativeio.PerfEventAttr;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * perf's symbolic event names: generic hardware events, the hardware cache matrix and software events, spelled
 * as {@code perf list} spells them. Names match ignoring case, as perf's cache names do.
 *
 * <p>The config numbers are kernel ABI, from {@code include/uapi/linux/perf_event.h}: {@code enum perf_hw_id},
 * {@code perf_hw_cache_id}, {@code perf_hw_cache_op_id}, {@code perf_hw_cache_op_result_id} and
 * {@code perf_sw_ids}.
 */
public final class GenericEvents {
    // enum perf_hw_id, for PERF_TYPE_HARDWARE
    public static final long HW_CPU_CYCLES = 0;
    public static final long HW_INSTRUCTIONS = 1;
    public static final long HW_CACHE_REFERENCES = 2;
    public static final long HW_CACHE_MISSES = 3;
    public static final long HW_BRANCH_INSTRUCTIONS = 4;
    public static final long HW_BRANCH_MISSES = 5;
    public static final long HW_BUS_CYCLES = 6;
    public static final long HW_STALLED_CYCLES_FRONTEND = 7;
    public static final long HW_STALLED_CYCLES_BACKEND = 8;
    public static final long HW_REF_CPU_CYCLES = 9;

    // enum perf_sw_ids, for PERF_TYPE_SOFTWARE
    public static final long SW_CPU_CLOCK = 0;
    public static final long SW_TASK_CLOCK = 1;
    public static final long SW_PAGE_FAULTS = 2;
    public static final long SW_CONTEXT_SWITCHES = 3;
    public static final long SW_CPU_MIGRATIONS = 4;
    public static final long SW_PAGE_FAULTS_MIN = 5;
    public static final long SW_PAGE_FAULTS_MAJ = 6;
    public static final long SW_ALIGNMENT_FAULTS = 7;
    public static final long SW_EMULATION_FAULTS = 8;

    /**
     * PERF_TYPE_HW_CACHE config layout: bits 0-7 the cache (perf_hw_cache_id, the index into this array),
     * bits 8-15 the operation, bits 16-23 the result.
     */
    private static final String[] CACHES = {"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node"};
    // perf_hw_cache_op_id order: READ, WRITE, PREFETCH; accesses read "<cache>-loads", misses "<cache>-load-misses".
    private static final String[] OPS = {"load", "store", "prefetch"};
    private static final String[] OP_ACCESSES = {"loads", "stores", "prefetches"};
    private static final int CACHE_OP_SHIFT = 8;
    private static final int CACHE_RESULT_SHIFT = 16;
    private static final long CACHE_RESULT_ACCESS = 0;
    private static final long CACHE_RESULT_MISS = 1;

    private static final Map<String, EventSpec> BY_SPELLING = new HashMap<>();
    private static final List<String> NAMES = new ArrayList<>();
    private static final List<String> SPELLINGS = new ArrayList<>();

    static {
        hardware("cycles", HW_CPU_CYCLES, "cpu-cycles");
        hardware("instructions", HW_INSTRUCTIONS);
        hardware("cache-references", HW_CACHE_REFERENCES);
        hardware("cache-misses", HW_CACHE_MISSES);
        hardware("branches", HW_BRANCH_INSTRUCTIONS, "branch-instructions");
        hardware("branch-misses", HW_BRANCH_MISSES);
        hardware("bus-cycles", HW_BUS_CYCLES);
        hardware("stalled-cycles-frontend", HW_STALLED_CYCLES_FRONTEND, "idle-cycles-frontend");
        hardware("stalled-cycles-backend", HW_STALLED_CYCLES_BACKEND, "idle-cycles-backend");
        hardware("ref-cycles", HW_REF_CPU_CYCLES);

        for (int cache = 0; cache < CACHES.length; cache++) {
            for (int op = 0; op < OPS.length; op++) {
                cache(CACHES[cache] + "-" + OP_ACCESSES[op], cacheConfig(cache, op, CACHE_RESULT_ACCESS));
                cache(CACHES[cache] + "-" + OPS[op] + "-misses", cacheConfig(cache, op, CACHE_RESULT_MISS));
            }
        }

        software("task-clock", SW_TASK_CLOCK);
        software("cpu-clock", SW_CPU_CLOCK);
        software("context-switches", SW_CONTEXT_SWITCHES, "cs");
        software("cpu-migrations", SW_CPU_MIGRATIONS, "migrations");
        software("page-faults", SW_PAGE_FAULTS, "faults");
        software("minor-faults", SW_PAGE_FAULTS_MIN);
        software("major-faults", SW_PAGE_FAULTS_MAJ);
        software("alignment-faults", SW_ALIGNMENT_FAULTS);
        software("emulation-faults", SW_EMULATION_FAULTS);
    }

    private GenericEvents() {}

    /** The event a perf name stands for, named by its canonical spelling ({@code cpu-cycles} gives {@code cycles}). */
    public static Optional<EventSpec> lookup(String name) {
        return Optional.ofNullable(BY_SPELLING.get(name.toLowerCase(Locale.ROOT)));
    }

    /**
     * Whether the event's count is a time in nanoseconds ({@code task-clock}, {@code cpu-clock}, with or without
     * modifiers) rather than a number of occurrences.
     */
    public static boolean countsNanoseconds(String event) {
        return event.startsWith("task-clock") || event.startsWith("cpu-clock");
    }

    /** Canonical names, in perf's order: hardware, hardware cache, software. */
    public static List<String> names() {
        return Collections.unmodifiableList(NAMES);
    }

    /** Canonical names and their aliases, the names a typo is compared against. */
    static List<String> spellings() {
        return Collections.unmodifiableList(SPELLINGS);
    }

    static long cacheConfig(int cache, int op, long result) {
        return cache | ((long) op << CACHE_OP_SHIFT) | (result << CACHE_RESULT_SHIFT);
    }

    private static void hardware(String name, long config, String... aliases) {
        define(EventSpec.userOnly(name, PerfEventAttr.TYPE_HARDWARE, config, 0, 0), aliases);
    }

    private static void cache(String name, long config) {
        define(EventSpec.userOnly(name, PerfEventAttr.TYPE_HW_CACHE, config, 0, 0));
    }

    private static void software(String name, long config, String... aliases) {
        define(EventSpec.software(name, config), aliases);
    }

    private static void define(EventSpec spec, String... aliases) {
        NAMES.add(spec.name());
        SPELLINGS.add(spec.name());
        BY_SPELLING.put(spec.name().toLowerCase(Locale.ROOT), spec);
        for (String alias : aliases) {
            SPELLINGS.add(alias);
            BY_SPELLING.put(alias.toLowerCase(Locale.ROOT), spec);
        }
    }
}
