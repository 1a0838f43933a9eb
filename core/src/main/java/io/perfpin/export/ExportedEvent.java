package io.perfpin.export;

import java.util.Locale;

/**
 * One counted event as the exports name it: {@link #baseName} is the event's name in lower case with every run of
 * other characters than letters and digits made one {@code _} ({@code task-clock} is {@code task_clock},
 * {@code DTLB_LOAD_MISSES.WALK_COMPLETED} is {@code dtlb_load_misses_walk_completed}), and the clocks, which the
 * kernel counts in nanoseconds, are exported in seconds.
 */
public final class ExportedEvent {
    private static final double NANOS_PER_SECOND = 1e9;

    private final String event;
    private final String baseName;
    private final boolean seconds;

    private ExportedEvent(String event, String baseName, boolean seconds) {
        this.event = event;
        this.baseName = baseName;
        this.seconds = seconds;
    }

    /** @param event the event's name as perfpin counts it ({@code task-clock}, {@code cycles:u}) */
    public static ExportedEvent of(String event) {
        String base = event.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_+|_+$", "");
        String clock = event.contains(":") ? event.substring(0, event.indexOf(':')) : event;
        return new ExportedEvent(event, base.isEmpty() ? "event" : base,
                clock.equals("task-clock") || clock.equals("cpu-clock"));
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

    /** A count of this event in the unit it is exported in. */
    double exported(long count) {
        return seconds ? count / NANOS_PER_SECOND : count;
    }
}
