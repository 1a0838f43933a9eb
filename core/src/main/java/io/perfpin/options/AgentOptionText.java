package io.perfpin.options;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's option text, {@code KEY=VALUE;KEY=VALUE;FLAG}: built by {@link Builder} (the CLI's {@code run} and
 * {@code attach}) and cut into its tokens by one rule for every reader: the agent, which gives each its meaning,
 * and the CLI, which compares what it would ask with what an agent already runs with. Keys are matched without
 * case, {@code count} is {@code threads}, and a flag ({@link #FLAGS}) has no value. A text the builder makes reads
 * back as exactly the options it was given. The defaults that the agent and the CLI share are written here once.
 */
public final class AgentOptionText {
    public static final List<String> FLAGS = List.of("detach", "quiet");
    /** What is counted when nothing else is asked: the scheduler's software events, which count everywhere. */
    public static final String DEFAULT_EVENTS = "sched";
    /** How often the agent samples when nothing else is asked. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(500);

    private static final Map<String, String> ALIASES = Map.of("count", "threads");

    /** Options, in the order given, as one text the agent reads back as exactly these. */
    public static final class Builder {
        private final List<String> options = new ArrayList<>();

        /**
         * @param askedAs how the user gave the value, for a message ({@code --threads})
         * @throws IllegalArgumentException when the value holds {@code ;}, which separates the options, or starts or
         *                                  ends with a blank, which the agent does not keep
         */
        public Builder option(String key, String value, String askedAs) {
            if (value.contains(";")) {
                throw new IllegalArgumentException(askedAs + " '" + value + "': ';' separates the agent's options;"
                        + " use a character class such as [;] in a config file given with -javaagent:...=config=FILE");
            }
            if (!value.equals(value.strip()) || value.isEmpty()) {
                throw new IllegalArgumentException(askedAs + " '" + value + "': the agent's options cannot carry a"
                        + " value that is empty or starts or ends with a blank");
            }
            options.add(key + "=" + value);
            return this;
        }

        /** {@code interval=}, in nanoseconds, which every duration is a whole number of. */
        public Builder interval(Duration interval) {
            return option("interval", interval.toNanos() + "ns", "--interval");
        }

        public Builder flag(String flag) {
            if (!FLAGS.contains(flag)) {
                throw new IllegalArgumentException("'" + flag + "' is not one of the agent's flags " + FLAGS);
            }
            options.add(flag);
            return this;
        }

        /** @throws IllegalArgumentException when the text is longer than the agent takes */
        public String text() {
            String text = String.join(";", options);
            if (text.length() > OptionLimits.MAX_AGENT_OPTIONS_CHARS) {
                throw new IllegalArgumentException("the agent's options would be " + text.length() + " characters,"
                        + " and it takes at most " + OptionLimits.MAX_AGENT_OPTIONS_CHARS + ": give fewer or shorter"
                        + " rules");
            }
            return text;
        }
    }

    /** One option: what the user wrote, its key and its value (empty for a flag). */
    public record Token(String text, String key, String value) {}

    private AgentOptionText() {}

    /**
     * The tokens of option text {@code text}, empty ones skipped.
     *
     * @throws IllegalArgumentException for a token that is neither a flag nor {@code KEY=VALUE}
     */
    public static List<Token> tokens(String text, String allowedKeys) {
        List<Token> tokens = new ArrayList<>();
        for (String part : text.split(";")) {
            Token token = token(part, allowedKeys);
            if (token != null) {
                tokens.add(token);
            }
        }
        return tokens;
    }

    /** One token, such as a line of a config file; null when it is empty. */
    public static Token token(String text, String allowedKeys) {
        String token = text.strip();
        if (token.isEmpty()) {
            return null;
        }
        if (FLAGS.contains(token)) {
            return new Token(token, token, "");
        }
        int eq = token.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException(
                    "bad option '" + token + "': expected KEY=VALUE, KEY one of " + allowedKeys);
        }
        String key = token.substring(0, eq).strip().toLowerCase(Locale.ROOT);
        return new Token(
                token, ALIASES.getOrDefault(key, key), token.substring(eq + 1).strip());
    }

    /** Each key's values, in order, for a text known to be an agent's (tokens it could not read are left out). */
    public static Map<String, List<String>> settings(String text) {
        Map<String, List<String>> settings = new LinkedHashMap<>();
        for (String part : text.split(";")) {
            try {
                Token token = token(part, "");
                if (token != null) {
                    settings.computeIfAbsent(token.key(), k -> new ArrayList<>())
                            .add(token.value());
                }
            } catch (IllegalArgumentException notAnOption) {
                // the agent refused it when it started: it sets nothing
            }
        }
        return settings;
    }
}
