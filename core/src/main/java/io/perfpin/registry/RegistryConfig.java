package io.perfpin.registry;

import io.perfpin.event.EventList;
import io.perfpin.options.AgentOptionText;
import io.perfpin.options.DescriptorShare;
import io.perfpin.stats.StatsLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * How a {@link ThreadRegistry} counts and where it publishes. Immutable to its users: each with-method returns a
 * changed copy.
 */
public final class RegistryConfig {
    /**
     * The most threads the stats file shows live unless {@link #withSlots} says otherwise; more are counted, not
     * shown. The file starts small and grows to it only as threads need slots.
     */
    public static final int DEFAULT_LIVE_SLOTS = StatsLayout.MAX_LIVE_SLOTS;

    /**
     * How long after its start the sampler makes a stats file asked for later: longer than a short main lives, so that
     * its exit does not wait for it; short enough that a viewer started with the JVM finds the file.
     */
    public static final Duration DEFERRED_DELAY = Duration.ofMillis(100);

    private EventList defaultEvents;
    private long intervalNanos = AgentOptionText.DEFAULT_INTERVAL.toNanos();
    private Path statsFile;
    private Supplier<Path> statsFileLater;
    private Path jsonLines;
    private int liveSlots = DEFAULT_LIVE_SLOTS;
    private int finishedSlots = 256;
    private int eventCapacity = 64;
    private DescriptorShare descriptors = DescriptorShare.DEFAULT;
    private String agentOptions = "";
    private boolean topologyAtStart = true;
    private long deferredDelayNanos = DEFERRED_DELAY.toNanos();

    private RegistryConfig(EventList defaultEvents) {
        this.defaultEvents = Objects.requireNonNull(defaultEvents, "defaultEvents");
    }

    private RegistryConfig copy() {
        RegistryConfig copy = new RegistryConfig(defaultEvents);
        copy.intervalNanos = intervalNanos;
        copy.statsFile = statsFile;
        copy.statsFileLater = statsFileLater;
        copy.jsonLines = jsonLines;
        copy.liveSlots = liveSlots;
        copy.finishedSlots = finishedSlots;
        copy.eventCapacity = eventCapacity;
        copy.descriptors = descriptors;
        copy.agentOptions = agentOptions;
        copy.topologyAtStart = topologyAtStart;
        copy.deferredDelayNanos = deferredDelayNanos;
        return copy;
    }

    /**
     * Counts {@code defaultEvents} every {@link AgentOptionText#DEFAULT_INTERVAL} within the default share of the
     * free file descriptors; no stats file and no recording until asked.
     */
    public static RegistryConfig of(EventList defaultEvents) {
        return new RegistryConfig(defaultEvents);
    }

    public RegistryConfig withInterval(long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + nanos + " ns");
        }
        RegistryConfig copy = copy();
        copy.intervalNanos = nanos;
        return copy;
    }

    /** A stats file created when the registry starts: one that cannot be written stops the start. */
    public RegistryConfig withStatsFile(Path file) {
        RegistryConfig copy = copy();
        copy.statsFile = file;
        copy.statsFileLater = null;
        return copy;
    }

    /**
     * A stats file at the path {@code where} gives, worked out and created on the sampler thread {@link
     * #DEFERRED_DELAY} after it starts (at most an interval), off the thread that starts the registry (an application's
     * main thread, in premain). Null from it, or a file that cannot be written, means no stats file, said once;
     * counting and recording go on. A registry closed sooner (a short main's JVM) makes none, and its exit waits for
     * nothing of it.
     */
    public RegistryConfig withStatsFileLater(Supplier<Path> where) {
        RegistryConfig copy = copy();
        copy.statsFile = null;
        copy.statsFileLater = Objects.requireNonNull(where, "where");
        return copy;
    }

    public RegistryConfig withJsonLines(Path file) {
        RegistryConfig copy = copy();
        copy.jsonLines = file;
        return copy;
    }

    public RegistryConfig withSlots(int live, int finished) {
        RegistryConfig copy = copy();
        copy.liveSlots = live;
        copy.finishedSlots = finished;
        return copy;
    }

    /** How many of the file descriptors free at the start perfpin may hold. */
    public RegistryConfig withDescriptors(DescriptorShare share) {
        RegistryConfig copy = copy();
        copy.descriptors = Objects.requireNonNull(share, "share");
        return copy;
    }

    /** The options text the agent was started with, kept in the stats file for viewers to compare theirs with. */
    public RegistryConfig withAgentOptions(String options) {
        RegistryConfig copy = copy();
        copy.agentOptions = Objects.requireNonNull(options, "options");
        return copy;
    }

    /**
     * No pin is asked for by name: the CPU topology is read on the sampler only once pins may come after all ({@link
     * ThreadRegistry#pinsAhead}), or else by the first pin. A JVM that never pins never reads it: on a large machine
     * that is hundreds of sysfs files, on a sampler that shares the CPUs with the application.
     */
    public RegistryConfig withTopologyWhenAsked() {
        RegistryConfig copy = copy();
        copy.topologyAtStart = false;
        return copy;
    }

    public boolean topologyAtStart() {
        return topologyAtStart;
    }

    /** A delay of its own for the sampler's deferred work, for a test that closes before it. */
    RegistryConfig withDeferredDelay(long nanos) {
        RegistryConfig copy = copy();
        copy.deferredDelayNanos = nanos;
        return copy;
    }

    long deferredDelayNanos() {
        return deferredDelayNanos;
    }

    public EventList defaultEvents() {
        return defaultEvents;
    }

    public long intervalNanos() {
        return intervalNanos;
    }

    /** Null when no stats file is created at the start. */
    public Path statsFile() {
        return statsFile;
    }

    /** Where the sampler creates the stats file shortly after it starts; null when it creates none. */
    public Supplier<Path> statsFileLater() {
        return statsFileLater;
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

    public DescriptorShare descriptors() {
        return descriptors;
    }

    public String agentOptions() {
        return agentOptions;
    }
}
