package io.perfpin.event;

import io.perfpin.options.OptionLimits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a user asked to count: a comma-separated mix of events and presets such as {@code ipc,tlb,task-clock},
 * presets expanded, events counted once (the first spelling wins, {@code cs} and {@code context-switches} being
 * one event), in the order first asked. A preset may carry modifiers for all its events: {@code ipc:uk}.
 *
 * <p>Commas inside a PMU event's slashes belong to it: {@code cpu/event=0x08,umask=0x0e/,cycles} is two events.
 */
public final class EventList {

    private final List<EventSpec> events;
    private final List<Preset> presets;
    private final List<BoundMetric> metrics;
    private final List<UnsupportedEvent> unsupported;
    private final Set<String> expandedPresets = new LinkedHashSet<>();

    /** One being parsed. */
    private EventList() {
        this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    }

    private EventList(
            List<EventSpec> events,
            List<Preset> presets,
            List<BoundMetric> metrics,
            List<UnsupportedEvent> unsupported) {
        this.events = events;
        this.presets = presets;
        this.metrics = metrics;
        this.unsupported = unsupported;
    }

    /**
     * @throws UnknownEventException for a token that is neither a preset nor an event, with the nearest names
     * @throws InvalidEventException for a malformed list or event
     */
    public static EventList parse(String list, EventParser parser) {
        OptionLimits.checkLength("event list", list, list);
        EventList result = new EventList();
        for (String token : split(list)) {
            result.add(token, parser);
        }
        return result.parsed();
    }

    /**
     * The list as parsed, each of its lists made unmodifiable once: what asks for one gets it, not a copy of it per
     * call (the agent asks for the events of every thread it takes in).
     */
    private EventList parsed() {
        return new EventList(List.copyOf(events), List.copyOf(presets), List.copyOf(metrics), List.copyOf(unsupported));
    }

    /** The distinct events to count, in order; metrics and counts index into this list. */
    public List<EventSpec> events() {
        return events;
    }

    /**
     * The names of {@link #events()}, in order: what outputs name the events selected by (the stats file, a
     * recording's run record, CSV's columns).
     */
    public List<String> names() {
        // a loop, not a stream: the agent asks in premain, where the first stream pipeline loaded some sixty classes
        List<String> names = new ArrayList<>(events.size());
        for (EventSpec event : events) {
            names.add(event.name());
        }
        return List.copyOf(names);
    }

    /** The presets asked for, in order. */
    public List<Preset> presets() {
        return presets;
    }

    /** The presets' metrics, bound to {@link #events()}; those needing an unsupported event say why. */
    public List<BoundMetric> metrics() {
        return metrics;
    }

    /** Preset events this machine cannot encode, left out of {@link #events()}. */
    public List<UnsupportedEvent> unsupported() {
        return unsupported;
    }

    /** Splits at commas outside {@code pmu/.../}. */
    static List<String> split(String list) {
        List<String> tokens = new ArrayList<>();
        boolean insidePmu = false;
        int start = 0;
        for (int i = 0; i <= list.length(); i++) {
            char c = i < list.length() ? list.charAt(i) : ',';
            if (c == '/') {
                insidePmu = !insidePmu;
            } else if (c == ',' && (!insidePmu || i == list.length())) {
                if (insidePmu) {
                    throw new InvalidEventException(
                            "unclosed '/' in event list '" + list + "': expected pmu/term=value,.../");
                }
                String token = list.substring(start, i).trim();
                if (token.isEmpty()) {
                    throw new InvalidEventException("empty entry in event list '" + list
                            + "': expected events or presets separated by single commas");
                }
                tokens.add(token);
                start = i + 1;
            }
        }
        return tokens;
    }

    private void add(String token, EventParser parser) {
        int colon = token.lastIndexOf(':');
        boolean modified = colon > 0 && EventParser.isModifiers(token.substring(colon + 1));
        String modifiers = modified ? token.substring(colon) : "";
        Optional<Preset> preset = Presets.find(modified ? token.substring(0, colon) : token);
        if (preset.isPresent()) {
            addPreset(preset.get(), modifiers, parser);
        } else {
            indexOf(parser.parse(token));
        }
    }

    private void addPreset(Preset preset, String modifiers, EventParser parser) {
        if (!expandedPresets.add(preset.name() + modifiers)) {
            return;
        }
        presets.add(preset);
        Map<String, Integer> indices = new HashMap<>();
        Map<String, String> missing = new HashMap<>();
        for (String event : preset.events()) {
            try {
                indices.put(event, indexOf(parser.parse(event + modifiers)));
            } catch (InvalidEventException e) {
                if (!preset.isIntelOnly(event)) {
                    throw e;
                }
                String reason = "Intel only; "
                        + (e instanceof UnknownEventException && ((UnknownEventException) e).reason() != null
                                ? ((UnknownEventException) e).reason()
                                : "not in this CPU's event tables");
                missing.put(event, reason);
                unsupported.add(new UnsupportedEvent(event + modifiers, preset.name(), reason));
            }
        }
        for (DerivedMetric metric : preset.metrics()) {
            List<String> inputs = metric.inputs();
            int[] positions = new int[inputs.size()];
            String reason = null;
            for (int i = 0; i < positions.length; i++) {
                String input = inputs.get(i);
                if (input.equals(DerivedMetric.WALL_NANOS)) {
                    positions[i] = BoundMetric.WALL;
                } else if (missing.containsKey(input)) {
                    positions[i] = BoundMetric.MISSING;
                    reason = input + ": " + missing.get(input);
                } else {
                    positions[i] = indices.get(input);
                }
            }
            metrics.add(new BoundMetric(metric, preset.name() + modifiers, positions, reason));
        }
    }

    /** Position of an event counting the same as this one, appending it if there is none. */
    private int indexOf(EventSpec spec) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).sameEncoding(spec)) {
                return i;
            }
        }
        events.add(spec);
        return events.size() - 1;
    }
}
