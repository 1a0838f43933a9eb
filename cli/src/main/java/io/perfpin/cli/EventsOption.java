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
    EventList events;

    EventList eventList() {
        return events;
    }

    /** Parsed with the command line, so that a misspelt event is a usage error before anything runs. */
    static final class Parser implements ITypeConverter<EventList> {
        @Override
        public EventList convert(String text) {
            return EventList.parse(text, new EventParser());
        }
    }
}
