package io.perfpin.apps;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The one line a workload prints last, for tests and benchmarks to parse:
 * {@code result <workload> key=value key=value ...}. Keys are lower case with hyphens; values are integers,
 * decimals with three places ({@code 0.812}), or {@code true}/{@code false}; nothing contains a space.
 */
public final class ResultLine {
    private static final String PREFIX = "result ";

    private final StringBuilder text = new StringBuilder(PREFIX);

    public ResultLine(String workload) {
        text.append(workload);
    }

    public ResultLine add(String key, long value) {
        return append(key, Long.toString(value));
    }

    public ResultLine add(String key, double value) {
        return append(key, String.format(Locale.ROOT, "%.3f", value));
    }

    public ResultLine add(String key, boolean value) {
        return append(key, Boolean.toString(value));
    }

    @Override
    public String toString() {
        return text.toString();
    }

    /** The key-value pairs of a result line, with the workload under {@code "workload"}. */
    public static Map<String, String> parse(String line) {
        if (!line.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a result line: " + line);
        }
        String[] tokens = line.substring(PREFIX.length()).split(" ");
        Map<String, String> values = new LinkedHashMap<>();
        values.put("workload", tokens[0]);
        for (int i = 1; i < tokens.length; i++) {
            int equals = tokens[i].indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("not key=value: '" + tokens[i] + "' in " + line);
            }
            values.put(tokens[i].substring(0, equals), tokens[i].substring(equals + 1));
        }
        return values;
    }

    private ResultLine append(String key, String value) {
        text.append(' ').append(key).append('=').append(value);
        return this;
    }
}
