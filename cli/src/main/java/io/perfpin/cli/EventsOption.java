package io.perfpin.cli;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --events LIST}, the agent's {@code events=}: events and presets, comma-separated. */
final class EventsOption {
    @Option(names = "--events", paramLabel = "LIST", defaultValue = "sched", converter = Parser.class,
            description = "Events and presets, comma-separated, e.g. sched,ipc,tlb (default: ${DEFAULT-VALUE});"
                    + " perfpin events lists them.")
    Chosen events;

    EventList eventList() {
        return events.list();
    }

    /** What the user wrote, to hand on as it was written, and what it names on this machine. */
    String text() {
        return events.text();
    }

    record Chosen(String text, EventList list) {
    }

    static final class Parser implements ITypeConverter<Chosen> {
        @Override
        public Chosen convert(String text) {
            return new Chosen(text, EventList.parse(text, new EventParser()));
        }
    }
}
