package io.perfpin.cli;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.options.AgentOptionText;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --events LIST}, the agent's {@code events=}: events and presets, comma-separated. */
final class EventsOption {
    static final String DEFAULT = AgentOptionText.DEFAULT_EVENTS;

    @Option(
            names = "--events",
            paramLabel = "LIST",
            defaultValue = DEFAULT,
            converter = Parser.class,
            description = "Events and presets, comma-separated, e.g. sched,ipc,tlb (default: ${DEFAULT-VALUE});"
                    + " perfpin events lists them.")
    Selection events;

    EventList eventList() {
        return events.list;
    }

    /** Whether the user chose events, not the default. */
    boolean given() {
        return !events.text.equals(DEFAULT);
    }

    /** As the user wrote it, for the agent's {@code events=}. */
    String text() {
        return events.text;
    }

    /** The list and the text it was parsed from. */
    static final class Selection {
        final String text;
        final EventList list;

        Selection(String text, EventList list) {
            this.text = text;
            this.list = list;
        }
    }

    /** Parsed with the command line, so that a misspelt event is a usage error before anything runs. */
    static final class Parser implements ITypeConverter<Selection> {
        @Override
        public Selection convert(String text) {
            return new Selection(text, EventList.parse(text, new EventParser()));
        }
    }
}
