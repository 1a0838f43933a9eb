package io.perfpin.bench;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.event.EventSpec;
import java.util.List;

/**
 * The four software events whose read the counter-read benchmarks time, the same four that
 * {@code benchmarks/src/main/c/readloop.c} opens: they count on every Linux machine, PMU or not, and fit one
 * kernel group, so one read(2) returns them all.
 */
final class ReadEvents {
    static final String LIST = "task-clock,context-switches,page-faults,cpu-migrations";

    private ReadEvents() {}

    static List<EventSpec> parse(String list) {
        return EventList.parse(list, new EventParser()).events();
    }
}
