package io.perfpin.agent.impl.jfr;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.event.BoundMetric;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.registry.SampledThread;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Event;
import jdk.jfr.EventFactory;
import jdk.jfr.ValueDescriptor;

/**
 * The {@code perfpin.ThreadCounters} event type for one list of events: per thread and sampler tick, each event's
 * count over the window and its coverage, and each derived metric over the window. Its fields follow the list, so
 * it is made at run time ({@link EventFactory}); a thread that counts other events (a {@code @Counted} task) has a
 * type of its own under the same name.
 *
 * <p>JFR sets an event's thread to the thread that commits it, which for these is perfpin's sampler: the thread
 * counted is the {@code thread} field, as in the JDK's own {@code jdk.ThreadAllocationStatistics}, with its
 * name and TID beside it, since JDK 17 writes a thread that has ended as N/A.
 */
final class ThreadCountersType {
    static final String NAME = "perfpin.ThreadCounters";
    private static final int FIXED = 5;

    private final EventFactory factory;
    private final int events;
    private final List<BoundMetric> metrics;
    private final double[] values;

    private ThreadCountersType(EventFactory factory, int events, List<BoundMetric> metrics) {
        this.factory = factory;
        this.events = events;
        this.metrics = metrics;
        this.values = new double[events];
    }

    static ThreadCountersType of(EventList list) {
        FieldNames names = new FieldNames();
        List<ValueDescriptor> fields = new ArrayList<>(List.of(
                EventTypes.field(Thread.class, names.fixed("thread"), "Thread", "The thread counted"),
                EventTypes.field(
                        String.class, names.fixed("threadName"), "Thread Name", "Its name when perfpin enrolled it"),
                EventTypes.field(int.class, names.fixed("tid"), "TID", "Its Linux thread id"),
                EventTypes.field(
                        long.class,
                        names.fixed("window"),
                        "Window",
                        "The wall time the counts cover: since the thread's previous event, or since it was enrolled",
                        EventTypes.nanoseconds()),
                EventTypes.field(
                        boolean.class,
                        names.fixed("last"),
                        "Last",
                        "The thread's last event: it ended, its task returned, or perfpin stopped counting")));
        for (EventSpec event : list.events()) {
            String name = event.name();
            fields.add(EventTypes.count(
                    names.of(name, ""),
                    name,
                    name + " over the window (scaled when multiplexed;" + " 0 with coverage 0 when not counted)"));
            fields.add(EventTypes.field(
                    double.class,
                    names.of(name, "Coverage"),
                    name + " coverage",
                    "The share of the window " + name + " was on a counter: below 100% when multiplexed, 0 when not"
                            + " counted",
                    EventTypes.percentage()));
        }
        List<BoundMetric> metrics = new ArrayList<>();
        for (BoundMetric metric : list.metrics()) {
            if (metric.supported()) {
                metrics.add(metric);
                fields.add(EventTypes.metric(names.of(metric.name(), ""), metric.metric()));
            }
        }
        EventFactory factory = EventFactory.create(
                EventTypes.type(
                        NAME, "Thread Counters", "What perfpin counted for one thread over one sampler interval"),
                fields);
        return new ThreadCountersType(factory, list.events().size(), metrics);
    }

    /** Whether a recording wants these events now: nothing else is done for them while none does. */
    boolean isEnabled() {
        return factory.getEventType().isEnabled();
    }

    /** @param delta the thread's counts over the window, indexed like the list's events */
    void commit(SampledThread thread, CounterSnapshot delta, long windowNanos, boolean last) {
        Event event = factory.newEvent();
        event.set(0, thread.thread());
        event.set(1, thread.name());
        event.set(2, thread.tid());
        event.set(3, windowNanos);
        event.set(4, last);
        for (int i = 0; i < events; i++) {
            boolean counted = delta.isCounted(i);
            event.set(FIXED + 2 * i, counted ? delta.value(i) : 0L);
            event.set(FIXED + 2 * i + 1, counted ? delta.coverage(i) : 0.0);
            values[i] = counted ? delta.value(i) : Double.NaN;
        }
        int field = FIXED + 2 * events;
        for (BoundMetric metric : metrics) {
            event.set(field++, metric.evaluate(values, windowNanos));
        }
        event.commit();
    }
}
