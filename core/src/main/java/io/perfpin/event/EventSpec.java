package io.perfpin.event;

import io.perfpin.nativeio.PerfEventAttr;
import java.util.Objects;

/**
 * One event to count, fully encoded: what {@code perf_event_open} needs, plus the name it was asked by.
 *
 * <p>Which privilege levels count is part of the spec and already resolved: software events count kernel
 * side too (context switches and migrations happen there), events of the CPU's PMU count user space only
 * unless a {@code :k} modifier asked for the kernel, and other PMUs (msr, power, uncore), which cannot
 * separate the levels, count all of them.
 */
public final class EventSpec {
    private final String name;
    private final int type;
    private final long config;
    private final long config1;
    private final long config2;
    private final boolean excludeUser;
    private final boolean excludeKernel;
    private final boolean excludeHv;

    public EventSpec(
            String name,
            int type,
            long config,
            long config1,
            long config2,
            boolean excludeUser,
            boolean excludeKernel,
            boolean excludeHv) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = type;
        this.config = config;
        this.config1 = config1;
        this.config2 = config2;
        this.excludeUser = excludeUser;
        this.excludeKernel = excludeKernel;
        this.excludeHv = excludeHv;
    }

    /** A software event ({@code PERF_TYPE_SOFTWARE}): counts user and kernel side. */
    public static EventSpec software(String name, long config) {
        return new EventSpec(name, PerfEventAttr.TYPE_SOFTWARE, config, 0, 0, false, false, false);
    }

    /**
     * An event with the privilege levels it counts by default, as said above: user space only on the CPU's
     * own PMU ({@code cpuPmu}), every level for software events and for PMUs that cannot tell them apart.
     */
    public static EventSpec withDefaultLevels(
            String name, int type, long config, long config1, long config2, boolean cpuPmu) {
        return type == PerfEventAttr.TYPE_SOFTWARE || !cpuPmu
                ? new EventSpec(name, type, config, config1, config2, false, false, false)
                : userOnly(name, type, config, config1, config2);
    }

    /** A hardware-side event of the given type: counts user space only (kernel and hypervisor excluded). */
    public static EventSpec userOnly(String name, int type, long config, long config1, long config2) {
        return new EventSpec(name, type, config, config1, config2, false, true, true);
    }

    public String name() {
        return name;
    }

    public int type() {
        return type;
    }

    public long config() {
        return config;
    }

    public long config1() {
        return config1;
    }

    public long config2() {
        return config2;
    }

    public boolean excludeUser() {
        return excludeUser;
    }

    public boolean excludeKernel() {
        return excludeKernel;
    }

    public boolean excludeHv() {
        return excludeHv;
    }

    public boolean isSoftware() {
        return type == PerfEventAttr.TYPE_SOFTWARE;
    }

    /**
     * Whether it takes one of a PMU's counters, of which there are few, so that the kernel multiplexes it when more
     * are asked for than there are: hardware, cache, raw and sysfs PMU events. Software, tracepoint and breakpoint
     * events are counted in the kernel's code paths and are never multiplexed.
     */
    public boolean canBeMultiplexed() {
        return type != PerfEventAttr.TYPE_SOFTWARE
                && type != PerfEventAttr.TYPE_TRACEPOINT
                && type != PerfEventAttr.TYPE_BREAKPOINT;
    }

    /** The same event under another name (a preset's alias, say). */
    public EventSpec named(String newName) {
        return new EventSpec(newName, type, config, config1, config2, excludeUser, excludeKernel, excludeHv);
    }

    /** The same encoding with other privilege levels, as a {@code :u}/{@code :k}/{@code :h} modifier asks. */
    public EventSpec withExclusions(boolean user, boolean kernel, boolean hv) {
        return new EventSpec(name, type, config, config1, config2, user, kernel, hv);
    }

    /** Whether both count the same thing the same way, whatever their names ({@code cs}, {@code context-switches}). */
    public boolean sameEncoding(EventSpec e) {
        return type == e.type
                && config == e.config
                && config1 == e.config1
                && config2 == e.config2
                && excludeUser == e.excludeUser
                && excludeKernel == e.excludeKernel
                && excludeHv == e.excludeHv;
    }

    /** The attribute fields of this event; the caller adds read format and group flags. */
    public PerfEventAttr toAttr() {
        long flags = (excludeUser ? PerfEventAttr.FLAG_EXCLUDE_USER : 0)
                | (excludeKernel ? PerfEventAttr.FLAG_EXCLUDE_KERNEL : 0)
                | (excludeHv ? PerfEventAttr.FLAG_EXCLUDE_HV : 0);
        return new PerfEventAttr()
                .type(type)
                .config(config)
                .config1(config1)
                .config2(config2)
                .flags(flags);
    }

    /** perf's spelling of the encoding: {@code type=4 config=0x1c2}, with config1/config2 when set. */
    public String encoding() {
        StringBuilder s =
                new StringBuilder("type=").append(type).append(" config=0x").append(Long.toHexString(config));
        if (config1 != 0) {
            s.append(" config1=0x").append(Long.toHexString(config1));
        }
        if (config2 != 0) {
            s.append(" config2=0x").append(Long.toHexString(config2));
        }
        return s.toString();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof EventSpec)) {
            return false;
        }
        EventSpec e = (EventSpec) o;
        return name.equals(e.name) && sameEncoding(e);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, type, config, config1, config2, excludeUser, excludeKernel, excludeHv);
    }

    @Override
    public String toString() {
        return name + " (" + encoding() + ")";
    }
}
