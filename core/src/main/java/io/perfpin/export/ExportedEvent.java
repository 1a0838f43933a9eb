package io.perfpin.export;

import io.perfpin.event.EventSpec;
import java.util.Locale;

/**
 * One counted event as the exports name it: {@link #baseName} is the event's name in lower case with every run of
 * other characters than letters and digits made one {@code _} ({@code task-clock} is {@code task_clock},
 * {@code DTLB_LOAD_MISSES.WALK_COMPLETED} is {@code dtlb_load_misses_walk_completed}), and the clocks, which the
 * kernel counts in nanoseconds, are exported in seconds. Its coverage is exported only when it can be multiplexed:
 * for the others it is 1 by construction, and a series of 1s would cost one series per thread series for nothing.
 */
public final class ExportedEvent {
    private static final double NANOS_PER_SECOND = 1e9;

    private final String event;
    private final String baseName;
    private final boolean seconds;
    private final boolean multiplexed;

    private ExportedEvent(String event, String baseName, boolean seconds, boolean multiplexed) {
        this.event = event;
        this.baseName = baseName;
        this.seconds = seconds;
        this.multiplexed = multiplexed;
    }

    /** The event as perfpin counts it, under its name ({@code task-clock}, {@code cycles:u}). */
    public static ExportedEvent of(EventSpec spec) {
        return of(spec.name(), spec.canBeMultiplexed());
    }

    /** @param event the event's name as perfpin counts it ({@code task-clock}, {@code cycles:u}) */
    static ExportedEvent of(String event, boolean multiplexed) {
        String base =
                event.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_+|_+$", "");
        String clock = event.contains(":") ? event.substring(0, event.indexOf(':')) : event;
        return new ExportedEvent(
                event,
                base.isEmpty() ? "event" : base,
                clock.equals("task-clock") || clock.equals("cpu-clock"),
                multiplexed);
    }

    /** The event's name as perfpin counts it. */
    public String event() {
        return event;
    }

    public String baseName() {
        return baseName;
    }

    /** Whether the kernel counts it in nanoseconds, exported as seconds. */
    public boolean seconds() {
        return seconds;
    }

    /** Whether the kernel may multiplex it ({@link EventSpec#canBeMultiplexed}): only then is its coverage news. */
    public boolean multiplexed() {
        return multiplexed;
    }

    /** A count of this event in the unit it is exported in. */
    double exported(long count) {
        return seconds ? count / NANOS_PER_SECOND : count;
    }
}
