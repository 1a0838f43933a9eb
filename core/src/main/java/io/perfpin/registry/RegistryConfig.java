package io.perfpin.registry;

import io.perfpin.event.EventList;

import java.nio.file.Path;
import java.util.Objects;

/** How a {@link ThreadRegistry} counts and where it publishes. Immutable; build with the with-methods. */
public final class RegistryConfig {
    /** Threads the stats file shows live unless {@link #withSlots} says otherwise; more are counted, not shown. */
    public static final int DEFAULT_LIVE_SLOTS = 1024;

    private final EventList defaultEvents;
    private final long intervalNanos;
    private final Path statsFile;
    private final Path jsonLines;
    private final int liveSlots;
    private final int finishedSlots;
    private final int eventCapacity;

    private RegistryConfig(EventList defaultEvents, long intervalNanos, Path statsFile, Path jsonLines,
                           int liveSlots, int finishedSlots, int eventCapacity) {
        this.defaultEvents = Objects.requireNonNull(defaultEvents, "defaultEvents");
        this.intervalNanos = intervalNanos;
        this.statsFile = statsFile;
        this.jsonLines = jsonLines;
        this.liveSlots = liveSlots;
        this.finishedSlots = finishedSlots;
        this.eventCapacity = eventCapacity;
    }

    /** Counts {@code defaultEvents} every 500 ms; no stats file and no recording until asked. */
    public static RegistryConfig of(EventList defaultEvents) {
        return new RegistryConfig(defaultEvents, 500_000_000L, null, null, DEFAULT_LIVE_SLOTS, 256, 64);
    }

    public RegistryConfig withInterval(long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + nanos + " ns");
        }
        return new RegistryConfig(defaultEvents, nanos, statsFile, jsonLines, liveSlots, finishedSlots, eventCapacity);
    }

    public RegistryConfig withStatsFile(Path file) {
        return new RegistryConfig(defaultEvents, intervalNanos, file, jsonLines, liveSlots, finishedSlots, eventCapacity);
    }

    public RegistryConfig withJsonLines(Path file) {
        return new RegistryConfig(defaultEvents, intervalNanos, statsFile, file, liveSlots, finishedSlots, eventCapacity);
    }

    public RegistryConfig withSlots(int live, int finished) {
        return new RegistryConfig(defaultEvents, intervalNanos, statsFile, jsonLines, live, finished, eventCapacity);
    }

    public EventList defaultEvents() {
        return defaultEvents;
    }

    public long intervalNanos() {
        return intervalNanos;
    }

    /** Null when no stats file is published. */
    public Path statsFile() {
        return statsFile;
    }

    /** Null when nothing is recorded. */
    public Path jsonLines() {
        return jsonLines;
    }

    public int liveSlots() {
        return liveSlots;
    }

    public int finishedSlots() {
        return finishedSlots;
    }

    public int eventCapacity() {
        return eventCapacity;
    }
}
