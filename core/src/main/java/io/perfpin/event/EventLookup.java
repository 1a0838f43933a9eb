package io.perfpin.event;

/**
 * Where names perf's tables do not cover are looked up: CPU-specific events such as
 * {@code DTLB_LOAD_MISSES.WALK_COMPLETED}, which libpfm4 encodes for the CPU at hand.
 */
@FunctionalInterface
public interface EventLookup {
    /** Says every name is unknown, so that a machine without the lookup still parses perf's own names. */
    EventLookup NOT_WIRED = name -> {
        throw new UnknownEventException(name, "libpfm4 lookup not wired");
    };

    /**
     * The event for a name (without perf's {@code :u}/{@code :k}/{@code :h} modifiers), its privilege levels
     * resolved as {@link EventSpec} says.
     *
     * @throws UnknownEventException when the name is unknown here, with the reason when the source itself is
     *                               missing (libpfm4 not installed, say)
     */
    EventSpec encode(String name);

    /** The lookup this build uses by default. */
    static EventLookup platform() {
        return NOT_WIRED;
    }
}
