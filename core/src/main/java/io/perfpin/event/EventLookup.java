package io.perfpin.event;

import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.PmuModel;
import io.perfpin.nativeio.libpfm.LibpfmException;
import java.util.List;

/**
 * Where names perf's tables do not cover are looked up: CPU-specific events such as
 * {@code DTLB_LOAD_MISSES.WALK_COMPLETED}, which libpfm4 encodes for the CPU at hand.
 */
@FunctionalInterface
public interface EventLookup {
    /** Says every name is unknown, so that a machine without the lookup still parses perf's own names. */
    EventLookup NOT_WIRED = new EventLookup() {
        @Override
        public EventSpec encode(String name) {
            throw new UnknownEventException(name, "libpfm4 lookup not wired");
        }
    };

    /**
     * The event for a name (without perf's {@code :u}/{@code :k}/{@code :h} modifiers), its privilege levels
     * resolved as {@link EventSpec} says.
     *
     * @throws UnknownEventException when the name is unknown here, with the reason when the source itself is
     *                               missing (libpfm4 not installed, say)
     */
    EventSpec encode(String name);

    /** The names this lookup knows, for suggestions on a typo; none by default. */
    default List<String> names() {
        return List.of();
    }

    /**
     * libpfm4 for this machine's CPU when it is installed; otherwise every lookup says how to install it. Where a
     * simulated PMU counts this process's hardware events ({@code -Dperfpin.simulated-pmu}, tests only), names are
     * encoded for the simulated model's PMU instead, since those are the events it counts.
     */
    static EventLookup platform() {
        return platform(Backends.simulatedPmuModel());
    }

    /** libpfm4 for {@code simulated}'s core PMU, or for this machine's CPU where it is null (the real path). */
    static EventLookup platform(PmuModel simulated) {
        String forcedPmu = simulated == null ? null : simulated.libpfmName();
        String whose = simulated == null ? "this CPU" : "the " + simulated + " PMU";
        return new EventLookup() {
            @Override
            public EventSpec encode(String name) {
                if (!LibpfmEncoder.available()) {
                    throw new UnknownEventException(name, LibpfmEncoder.unavailableReason());
                }
                try {
                    return LibpfmEncoder.encode(name, forcedPmu);
                } catch (LibpfmException e) {
                    if (e.eventNotFound()) {
                        throw new UnknownEventException(name, "not a perf, sysfs or libpfm4 event for " + whose);
                    }
                    throw new InvalidEventException(e.getMessage());
                }
            }

            @Override
            public List<String> names() {
                return LibpfmEncoder.available() ? LibpfmEncoder.eventNames(forcedPmu) : List.of();
            }
        };
    }
}
