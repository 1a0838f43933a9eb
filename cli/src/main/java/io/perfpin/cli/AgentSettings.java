package io.perfpin.cli;

import io.perfpin.options.OptionLimits;
import io.perfpin.options.PinRule;
import io.perfpin.options.ThreadPattern;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
    ThreadPattern threadClass;

    @Option(names = "--record", paramLabel = "FILE",
            description = "The agent records JSON lines there (its out=): samples, a final record per thread,"
                    + " @Counted methods; perfpin report FILE summarises it.")
    Path record;

    /**
     * @throws IllegalArgumentException when a regex holds {@code ;}, which separates the agent's options, or the
     *                                  options are longer than the agent takes
     */
    String agentOptions() {
        List<String> options = new ArrayList<>();
        if (threads.regex != null) {
            options.add("threads=" + checked("--threads", threads.regex.toString()));
        }
        if (threadClass != null) {
            options.add("class=" + checked("--class", threadClass.toString()));
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
        String text = String.join(";", options);
        if (text.length() > OptionLimits.MAX_AGENT_OPTIONS_CHARS) {
            throw new IllegalArgumentException("the agent's options would be " + text.length() + " characters, and it"
                    + " takes at most " + OptionLimits.MAX_AGENT_OPTIONS_CHARS + ": give fewer or shorter rules");
        }
        return text;
    }

    private static String checked(String option, String value) {
        if (value.contains(";")) {
            throw new IllegalArgumentException(option + " '" + value + "': ';' separates the agent's options; use"
                    + " a character class such as [;] in a config file given with -javaagent:...=config=FILE");
        }
        return value;
    }
}
