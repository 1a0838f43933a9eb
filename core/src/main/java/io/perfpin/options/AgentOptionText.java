package io.perfpin.options;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's option text, {@code KEY=VALUE;KEY=VALUE;FLAG}, cut into its tokens by one rule for every reader:
 * the agent, which gives each its meaning, and the CLI, which compares what it would ask with what an agent
 * already runs with. Keys are matched without case, {@code count} is {@code threads}, and a flag
 * ({@link #FLAGS}) has no value.
 */
public final class AgentOptionText {
    public static final List<String> FLAGS = List.of("detach", "quiet");
    private static final Map<String, String> ALIASES = Map.of("count", "threads");

    /** One option: what the user wrote, its key and its value (empty for a flag). */
    public record Token(String text, String key, String value) {
    }

    private AgentOptionText() {
    }

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
            throw new IllegalArgumentException("bad option '" + token + "': expected KEY=VALUE, KEY one of "
                    + allowedKeys);
        }
        String key = token.substring(0, eq).strip().toLowerCase(Locale.ROOT);
        return new Token(token, ALIASES.getOrDefault(key, key), token.substring(eq + 1).strip());
    }

    /** Each key's values, in order, for a text known to be an agent's (tokens it could not read are left out). */
    public static Map<String, List<String>> settings(String text) {
        Map<String, List<String>> settings = new LinkedHashMap<>();
        for (String part : text.split(";")) {
            try {
                Token token = token(part, "");
                if (token != null) {
                    settings.computeIfAbsent(token.key(), k -> new ArrayList<>()).add(token.value());
                }
            } catch (IllegalArgumentException notAnOption) {
                // the agent refused it when it started: it sets nothing
            }
        }
        return settings;
    }
}
