package io.perfpin.nativeio;

import java.util.Locale;
import java.util.Map;

/**
 * What a simulated PMU ({@link SimulatedPmu}) has and answers: its counters, which hardware events it supports,
 * and how fast each supported event counts per nanosecond of the thread's real task-clock.
 *
 * <p>Only {@code skylake} exists: Intel's client and server cores from Skylake to Cascade Lake, three fixed
 * counters (cycles, instructions, ref-cycles) and four general-purpose ones per thread with hyper-threading on.
 * What the kernel's x86 driver refuses on such a core is refused the same way: generic events it maps to nothing
 * with {@code ENOENT}, out-of-range or impossible cache events with {@code EINVAL}.
 */
public final class PmuModel {
    /** PERF_COUNT_HW_* of linux/perf_event.h. */
    static final long CPU_CYCLES = 0;

    static final long INSTRUCTIONS = 1;
    static final long CACHE_REFERENCES = 2;
    static final long CACHE_MISSES = 3;
    static final long BRANCH_INSTRUCTIONS = 4;
    static final long BRANCH_MISSES = 5;
    static final long BUS_CYCLES = 6;
    static final long STALLED_CYCLES_FRONTEND = 7;
    static final long STALLED_CYCLES_BACKEND = 8;
    static final long REF_CPU_CYCLES = 9;
    static final long HW_MAX = 10;

    /** PERF_COUNT_HW_CACHE_* ids, ops and results: config = id | op << 8 | result << 16. */
    static final int L1D = 0;

    static final int L1I = 1;
    static final int LL = 2;
    static final int DTLB = 3;
    static final int ITLB = 4;
    static final int BPU = 5;
    static final int NODE = 6;
    static final int CACHE_IDS = 7;
    static final int OP_WRITE = 1;
    static final int OP_PREFETCH = 2;
    static final int OPS = 3;
    static final int RESULT_MISS = 1;
    static final int RESULTS = 2;

    /** The name under which the kernel's x86 driver publishes the core's PMU in sysfs. */
    public static final String CPU_PMU = "cpu";

    /** The fixed counter an event can use besides the general-purpose ones; NONE: general-purpose only. */
    enum Fixed {
        NONE,
        CYCLES,
        INSTRUCTIONS,
        /** ref-cycles: Intel counts it on fixed counter 2 only. */
        REF_CYCLES_ONLY
    }

    private final String name;
    private final String libpfmName;
    private final int generalPurpose;
    private final double gigahertz;
    private final double referenceGigahertz;

    private PmuModel(String name, String libpfmName, int generalPurpose, double gigahertz, double referenceGigahertz) {
        this.name = name;
        this.libpfmName = libpfmName;
        this.generalPurpose = generalPurpose;
        this.gigahertz = gigahertz;
        this.referenceGigahertz = referenceGigahertz;
    }

    /**
     * Whether a simulated PMU answers events of this perf type: the core PMU's generic, cache and raw events (its
     * sysfs {@code cpu} PMU is the raw type); every other type is the kernel's.
     */
    public static boolean simulates(int type) {
        return type == PerfEventAttr.TYPE_HARDWARE
                || type == PerfEventAttr.TYPE_HW_CACHE
                || type == PerfEventAttr.TYPE_RAW;
    }

    /** The model a property names, or null when it names none. */
    public static PmuModel named(String name) {
        if ("skylake".equals(name.trim().toLowerCase(Locale.ROOT))) {
            return new PmuModel("skylake", "skl", 4, 3.0, 2.4);
        }
        return null;
    }

    /** What {@link #named} knows, for the line that refuses another name. */
    public static String allowed() {
        return "skylake";
    }

    public String name() {
        return name;
    }

    /**
     * libpfm4's name for this model's core PMU ({@code skl}): the simulated process encodes CPU-specific event
     * names for it, whatever processor the machine has, so that an event such as
     * {@code DTLB_LOAD_MISSES.WALK_ACTIVE} is what the simulated core would count.
     */
    public String libpfmName() {
        return libpfmName;
    }

    /**
     * The perf type of the model's {@code cpu} PMU: the x86 driver registers the core's PMU as PERF_TYPE_RAW, so a
     * {@code cpu/event=0x..,umask=0x../} event is a raw one, counted at the raw events' rates.
     */
    public int cpuPmuType() {
        return PerfEventAttr.TYPE_RAW;
    }

    /**
     * The terms the model's {@code cpu} PMU takes, as its sysfs {@code format/} files would say them: those a
     * Skylake core's kernel publishes for the event select register that perfpin's users write.
     */
    public Map<String, String> cpuPmuFormats() {
        return Map.of(
                "event", "config:0-7",
                "umask", "config:8-15",
                "edge", "config:18",
                "inv", "config:23",
                "cmask", "config:24-31");
    }

    int generalPurposeCounters() {
        return generalPurpose;
    }

    /**
     * Whether this PMU counts the event: 0, or the -errno that perf_event_open returns for it, as the x86 driver
     * does (x86_pmu_event_map and hw_cache_event_ids of a Skylake core).
     */
    int refusal(int type, long config) {
        if (type == PerfEventAttr.TYPE_HARDWARE) {
            if (config < 0 || config >= HW_MAX) {
                return -Errno.EINVAL;
            }
            return config == STALLED_CYCLES_FRONTEND || config == STALLED_CYCLES_BACKEND ? -Errno.ENOENT : 0;
        }
        if (type == PerfEventAttr.TYPE_HW_CACHE) {
            long id = config & 0xff;
            long op = (config >>> 8) & 0xff;
            long result = (config >>> 16) & 0xff;
            if (id >= CACHE_IDS || op >= OPS || result >= RESULTS || (config >>> 24) != 0) {
                return -Errno.EINVAL;
            }
            if (op == OP_WRITE && (id == L1I || id == ITLB || id == BPU)) {
                return -Errno.EINVAL; // -1 in the kernel's table: the combination means nothing
            }
            if (op == OP_PREFETCH || (id == L1I && result != RESULT_MISS)) {
                return -Errno.ENOENT; // 0 in the kernel's table: no event counts it on this core
            }
            return 0;
        }
        return 0; // PERF_TYPE_RAW: the core takes any event select and umask
    }

    /** The fixed counter that can take the event, besides the general-purpose counters. */
    Fixed fixed(int type, long config) {
        if (type != PerfEventAttr.TYPE_HARDWARE) {
            return Fixed.NONE;
        }
        if (config == CPU_CYCLES) {
            return Fixed.CYCLES;
        }
        if (config == INSTRUCTIONS) {
            return Fixed.INSTRUCTIONS;
        }
        return config == REF_CPU_CYCLES ? Fixed.REF_CYCLES_ONLY : Fixed.NONE;
    }

    /**
     * How many the event counts per nanosecond the thread runs. Cycles run at the model's frequency; instructions
     * at the thread's IPC; every other event at a rate per kilo-instruction drawn from the thread's name and the
     * event, in a range usual for it, so that two threads of different names differ and one thread keeps its
     * rates from run to run; or, for the misses (and raw events), {@code mpki} where it is not null. A raw event
     * with a counter mask counts cycles: {@link #CYCLES_PER_OCCURRENCE} for each occurrence at that rate.
     */
    double ratePerNanosecond(int type, long config, String thread, double ipc, Double mpki) {
        double instructions = gigahertz * ipc;
        if (type == PerfEventAttr.TYPE_RAW && counterMask(config) != 0) {
            // With a counter mask the core counts cycles, those in which the condition holds (a page walk in
            // progress, a request outstanding): occurrences at the miss rate, each lasting a few tens of cycles,
            // never more than every cycle, so that a share of cycles such as walk-cycles-share stays one.
            double perKilo = mpki != null ? mpki : drawn(thread, type, config, 0.1, 5);
            return Math.min(gigahertz, instructions * perKilo / 1000 * CYCLES_PER_OCCURRENCE);
        }
        boolean miss = type == PerfEventAttr.TYPE_RAW
                || type == PerfEventAttr.TYPE_HARDWARE && (config == CACHE_MISSES || config == BRANCH_MISSES)
                || type == PerfEventAttr.TYPE_HW_CACHE && ((config >>> 16) & 0xff) == RESULT_MISS;
        if (miss && mpki != null) {
            return instructions * mpki / 1000;
        }
        if (type == PerfEventAttr.TYPE_HARDWARE) {
            return switch ((int) config) {
                case (int) CPU_CYCLES -> gigahertz;
                case (int) INSTRUCTIONS -> instructions;
                case (int) REF_CPU_CYCLES -> referenceGigahertz;
                case (int) BUS_CYCLES -> referenceGigahertz / 24;
                case (int) BRANCH_INSTRUCTIONS -> instructions * drawn(thread, type, config, 120, 220) / 1000;
                case (int) BRANCH_MISSES -> instructions * drawn(thread, type, config, 0.5, 8) / 1000;
                case (int) CACHE_REFERENCES -> instructions * drawn(thread, type, config, 5, 40) / 1000;
                default -> instructions * drawn(thread, type, config, 0.2, 10) / 1000; // CACHE_MISSES
            };
        }
        if (type == PerfEventAttr.TYPE_HW_CACHE) {
            int id = (int) (config & 0xff);
            if (!miss) {
                return instructions * drawn(thread, type, config, id == BPU ? 120 : 150, id == BPU ? 220 : 450) / 1000;
            }
            double[] range = MISSES_PER_KILO[id];
            return instructions * drawn(thread, type, config, range[0], range[1]) / 1000;
        }
        return instructions * drawn(thread, type, config, 1, 50) / 1000;
    }

    /** How long a counter-masked condition holds each time it occurs, in cycles: a page walk's order. */
    static final double CYCLES_PER_OCCURRENCE = 30;

    /** The counter mask (cmask, bits 24 to 31) of an Intel raw event: non-zero, the event counts cycles. */
    static long counterMask(long config) {
        return (config >>> 24) & 0xff;
    }

    /** Misses per kilo-instruction, low and high, by cache id: L1D, L1I, LL, DTLB, ITLB, BPU, NODE. */
    private static final double[][] MISSES_PER_KILO = {
        {5, 60}, {0.5, 10}, {0.1, 5}, {0.1, 5}, {0.01, 1}, {0.5, 8}, {0, 2}
    };

    /** A thread's IPC when no property sets it: from its name, between 0.4 and 3.2. */
    double instructionsPerCycle(String thread) {
        return drawn(thread, -1, -1, 0.4, 3.2);
    }

    /** A value in [low, high) that depends only on the thread's name and the event. */
    private static double drawn(String thread, int type, long config, double low, double high) {
        long h = thread.hashCode() * 0x9E3779B97F4A7C15L + type * 0xC2B2AE3D27D4EB4FL + config;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        double unit = (h >>> 11) * 0x1.0p-53;
        return low + unit * (high - low);
    }

    @Override
    public String toString() {
        return "simulated " + name;
    }
}
