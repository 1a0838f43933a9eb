package io.perfpin.cli;

import io.perfpin.options.PinRule;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What {@code run} and {@code attach} ask of the agent, with the same flags as every command, turned into the
 * agent's options ({@code threads=...;pin=...;events=...;interval=...;out=...}).
 */
final class AgentSettings {
    @Mixin
    ThreadsOption threads;

    @Mixin
    PinOptions pins;

    @Mixin
    EventsOption events;

    @Mixin
    IntervalOption interval;

    @Option(names = "--class", paramLabel = "REGEX", converter = ThreadsOption.Regex.class,
            description = "Also count threads whose class (a Thread subclass) matches REGEX, whatever their name.")
    Pattern threadClass;

    @Option(names = "--record", paramLabel = "FILE",
            description = "The agent records JSON lines there (its out=): samples, a final record per thread,"
                    + " @Counted methods; perfpin report FILE summarises it.")
    Path record;

    /** @throws IllegalArgumentException when a regex holds {@code ;}, which separates the agent's options */
    String agentOptions() {
        List<String> options = new ArrayList<>();
        if (threads.regex != null) {
            options.add("threads=" + checked("--threads", threads.regex.pattern()));
        }
        if (threadClass != null) {
            options.add("class=" + checked("--class", threadClass.pattern()));
        }
        for (PinRule rule : pins.rules()) {
            options.add("pin=" + checked("--pin", rule.toString()));
        }
        options.add("events=" + events.text());
        if (interval.interval != null) {
            options.add("interval=" + interval.interval.toNanos() + "ns");
        }
        if (record != null) {
            options.add("out=" + record.toAbsolutePath());
        }
        return String.join(";", options);
    }

    private static String checked(String option, String value) {
        if (value.contains(";")) {
            throw new IllegalArgumentException(option + " '" + value + "': ';' separates the agent's options; use"
                    + " a character class such as [;] in a config file given with -javaagent:...=config=FILE");
        }
        return value;
    }
}
