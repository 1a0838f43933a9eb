package io.perfpin.event;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A named bundle of events and the metrics derived from them, such as {@code ipc} for cycles, instructions and
 * IPC. Events marked Intel-only are left out, with a reason, where the CPU does not have them; the rest of the
 * preset still counts.
 */
public final class Preset {
    private final String name;
    private final String description;
    private final List<String> events;
    private final Set<String> intelOnly;
    private final List<DerivedMetric> metrics;

    /**
     * @param events    event names as {@link EventParser} takes them
     * @param intelOnly those of the events only Intel CPUs have
     * @param metrics   metrics whose inputs are all among the events (or {@link DerivedMetric#WALL_NANOS})
     */
    public Preset(
            String name, String description, List<String> events, Set<String> intelOnly, List<DerivedMetric> metrics) {
        this.name = Objects.requireNonNull(name, "name");
        this.description = Objects.requireNonNull(description, "description");
        this.events = List.copyOf(events);
        this.intelOnly = Set.copyOf(intelOnly);
        this.metrics = List.copyOf(metrics);
        List<String> strays = new ArrayList<>(intelOnly);
        strays.removeAll(events);
        for (DerivedMetric metric : metrics) {
            for (String input : metric.inputs()) {
                if (!input.equals(DerivedMetric.WALL_NANOS) && !events.contains(input)) {
                    strays.add(input);
                }
            }
        }
        if (!strays.isEmpty()) {
            throw new IllegalArgumentException("preset " + name + " refers to events it does not list: " + strays);
        }
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    public List<String> events() {
        return events;
    }

    public boolean isIntelOnly(String event) {
        return intelOnly.contains(event);
    }

    public List<DerivedMetric> metrics() {
        return metrics;
    }

    @Override
    public String toString() {
        return name + ": " + description;
    }
}
