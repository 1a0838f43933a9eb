package io.perfpin.agent.impl.jfr;

import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.event.GenericEvents;
import io.perfpin.report.MethodRecord;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Event;
import jdk.jfr.EventFactory;
import jdk.jfr.ValueDescriptor;

/**
 * The {@code perfpin.MethodCounters} event type for the methods that count one list of events: a {@code @Counted}
 * method's summary as the recording has it ({@link MethodRecord}), cumulative since the agent started: calls, and
 * per event the total, the mean per call, p50 and p99. Made at run time, its fields following the list.
 */
final class MethodCountersType {
    static final String NAME = "perfpin.MethodCounters";
    private static final int FIXED = 2;

    private final EventFactory factory;
    private final List<String> events = new ArrayList<>();

    private MethodCountersType(EventFactory factory, List<String> events) {
        this.factory = factory;
        this.events.addAll(events);
    }

    static MethodCountersType of(EventList list) {
        FieldNames names = new FieldNames();
        List<ValueDescriptor> fields = new ArrayList<>(List.of(
                EventTypes.field(String.class, names.fixed("method"), "Method", "The @Counted method"),
                EventTypes.field(
                        long.class,
                        names.fixed("calls"),
                        "Calls",
                        "Calls that returned, since the agent" + " started")));
        List<String> events = new ArrayList<>();
        for (EventSpec spec : list.events()) {
            String event = spec.name();
            events.add(event);
            fields.add(EventTypes.count(names.of(event, "Total"), event + " total", event + " over all calls"));
            fields.add(
                    GenericEvents.countsNanoseconds(event)
                            ? EventTypes.count(
                                    names.of(event, "Mean"), event + " mean", event + " per call, on average")
                            : EventTypes.field(
                                    double.class,
                                    names.of(event, "Mean"),
                                    event + " mean",
                                    event + " per call, on average"));
            fields.add(EventTypes.count(names.of(event, "P50"), event + " p50", event + " per call: the median"));
            fields.add(EventTypes.count(
                    names.of(event, "P99"), event + " p99", event + " per call: the 99th" + " percentile"));
        }
        EventFactory factory = EventFactory.create(
                EventTypes.type(
                        NAME,
                        "Method Counters",
                        "What perfpin counted in the calls of one @Counted method, since the agent started"),
                fields);
        return new MethodCountersType(factory, events);
    }

    boolean isEnabled() {
        return factory.getEventType().isEnabled();
    }

    /** An event that was not counted has zeros. */
    void commit(MethodRecord summary) {
        Event event = factory.newEvent();
        event.set(0, summary.method());
        event.set(1, summary.calls());
        for (int i = 0; i < events.size(); i++) {
            String name = events.get(i);
            int field = FIXED + 4 * i;
            event.set(field, summary.totals().getOrDefault(name, 0L));
            double mean = summary.means().getOrDefault(name, 0.0);
            event.set(field + 1, GenericEvents.countsNanoseconds(name) ? (Object) Math.round(mean) : (Object) mean);
            event.set(field + 2, summary.p50().getOrDefault(name, 0L));
            event.set(field + 3, summary.p99().getOrDefault(name, 0L));
        }
        event.commit();
    }
}
