package io.perfpin.apps;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload's command-line options: {@code --key=value} or {@code --key value}, and flags, {@code --key}
 * alone (or {@code --key=true}, {@code --key=false}).
 *
 * <p>An option is declared where the workload reads it, with its default and range: reading it is what
 * allows it. Once the workload has read all of its options, {@link #rejectUnread()} refuses whatever was
 * given and not read, listing the options that were, so no workload writes its option names twice.
 */
public final class Args {
    /** Given options in command-line order; a key given without a value maps to null. */
    private final Map<String, String> given = new LinkedHashMap<>();

    private final List<String> strayTokens = new ArrayList<>();
    /** Read options in reading order, each with its synopsis, e.g. {@code --passes N}. */
    private final Map<String, String> read = new LinkedHashMap<>();

    private final List<String> help = new ArrayList<>();

    private Args() {}

    /** Splits the command line into options; only a key given twice is refused here. */
    public static Args parse(String... args) {
        Args parsed = new Args();
        for (int i = 0; i < args.length; i++) {
            String token = args[i];
            if (!token.startsWith("--") || token.length() == 2) {
                parsed.strayTokens.add(token);
                continue;
            }
            int equals = token.indexOf('=');
            String key = token.substring(2, equals < 0 ? token.length() : equals);
            String value = equals >= 0
                    ? token.substring(equals + 1)
                    : i + 1 < args.length && !args[i + 1].startsWith("--") ? args[++i] : null;
            if (parsed.given.containsKey(key)) {
                throw new UsageException("--" + key + " is given twice: give each option once");
            }
            parsed.given.put(key, value);
        }
        return parsed;
    }

    /** No options at all: every option reads as its default. */
    public static Args none() {
        return parse();
    }

    /** The value of {@code --key}: an integer from {@code min} to {@code max}, {@code defaultValue} if absent. */
    public int intValue(String key, int defaultValue, int min, int max) {
        return intValue(key, defaultValue, min, max, 1);
    }

    /** As {@link #intValue(String, int, int, int)}, and a multiple of {@code multipleOf}. */
    public int intValue(String key, int defaultValue, int min, int max, int multipleOf) {
        String expected =
                "an integer from " + min + " to " + max + (multipleOf > 1 ? ", a multiple of " + multipleOf : "");
        declare(key, "--" + key + " N", expected + " (default " + defaultValue + ")");
        if (!given.containsKey(key)) {
            return defaultValue;
        }
        String token = given.get(key);
        if (token == null) {
            throw new UsageException("--" + key + " needs a value: " + expected);
        }
        int value;
        try {
            value = Integer.parseInt(token.replace("_", ""));
        } catch (NumberFormatException e) {
            throw UsageException.bad(key, token, expected);
        }
        if (value < min || value > max || value % multipleOf != 0) {
            throw UsageException.bad(key, token, expected);
        }
        return value;
    }

    /** Whether {@code --key} is given (alone or as {@code =true}); false if absent. */
    public boolean flag(String key, String meaning) {
        declare(key, "--" + key, meaning);
        String token = given.getOrDefault(key, "false");
        if (token == null || token.equals("true")) {
            return true;
        }
        if (token.equals("false")) {
            return false;
        }
        throw UsageException.bad(key, token, "nothing, true or false");
    }

    /** Refuses an option that was given but never read, and a token that is no option. */
    public void rejectUnread() {
        String allowed =
                String.join(", ", read.keySet().stream().map(k -> "--" + k).toArray(String[]::new));
        for (String key : given.keySet()) {
            if (!read.containsKey(key)) {
                throw new UsageException("unknown option '--" + key + "': expected one of " + allowed);
            }
        }
        if (!strayTokens.isEmpty()) {
            throw new UsageException("unexpected '" + strayTokens.get(0) + "': expected options --key=value or "
                    + "--key value, one of " + allowed);
        }
    }

    /** One line per read option: its synopsis and what it accepts. */
    public List<String> help() {
        return List.copyOf(help);
    }

    /** The read options' synopses, for a usage line: {@code [--round-trips N] [--annotated]}. */
    public String synopsis() {
        return String.join(" ", read.values().stream().map(s -> "[" + s + "]").toArray(String[]::new));
    }

    private void declare(String key, String synopsis, String description) {
        if (read.putIfAbsent(key, synopsis) == null) {
            help.add(String.format("  %-18s %s", synopsis, description));
        }
    }
}
