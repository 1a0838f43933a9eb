package io.perfpin.report;

import java.util.List;
import java.util.Map;

/** The little JSON perfpin writes: objects of strings, numbers, flat maps and arrays of strings, one per line. */
public final class Json {
    private final StringBuilder out = new StringBuilder(256);
    private boolean first = true;

    private Json() {}

    public static Json object() {
        Json json = new Json();
        json.out.append('{');
        return json;
    }

    public Json field(String key, String value) {
        key(key);
        string(value);
        return this;
    }

    public Json field(String key, long value) {
        key(key);
        out.append(value);
        return this;
    }

    public Json field(String key, boolean value) {
        key(key);
        out.append(value);
        return this;
    }

    public Json field(String key, double value) {
        key(key);
        number(value);
        return this;
    }

    /** A nested object of numbers or strings. */
    public Json field(String key, Map<String, ?> values) {
        key(key);
        out.append('{');
        boolean firstEntry = true;
        for (Map.Entry<String, ?> e : values.entrySet()) {
            if (!firstEntry) {
                out.append(',');
            }
            firstEntry = false;
            string(e.getKey());
            out.append(':');
            Object v = e.getValue();
            if (v instanceof Double || v instanceof Float) {
                number(((Number) v).doubleValue());
            } else if (v instanceof Number) {
                out.append(((Number) v).longValue());
            } else {
                string(String.valueOf(v));
            }
        }
        out.append('}');
        return this;
    }

    /** An array of strings. */
    public Json field(String key, List<String> values) {
        key(key);
        out.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            string(values.get(i));
        }
        out.append(']');
        return this;
    }

    /** An array of numbers. */
    public Json field(String key, int[] values) {
        key(key);
        out.append('[');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(values[i]);
        }
        out.append(']');
        return this;
    }

    /** The finished object, without a newline. */
    public String end() {
        return out.append('}').toString();
    }

    private void key(String key) {
        if (!first) {
            out.append(',');
        }
        first = false;
        string(key);
        out.append(':');
    }

    private void number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            out.append("null");
        } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            out.append((long) value);
        } else {
            out.append(value);
        }
    }

    /** {@code value} as a JSON string, quoted and escaped as every string perfpin writes is. */
    public static String quote(String value) {
        Json json = new Json();
        json.string(value);
        return json.out.toString();
    }

    private void string(String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    // RFC 8259 asks the C0 controls' escape; the rest that a terminal would act on (C1, bidi
                    // overrides) is escaped too, as losslessly, so that JSON read on a terminal drives none of it
                    if (TerminalText.isUnsafe(c) || isLoneSurrogate(value, i)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * Whether {@code value}'s char at {@code i} is half a character, as a Java thread name may hold: UTF-8 cannot
     * carry it, so each output writes it its own way (JSON as an escape that keeps it whole).
     */
    public static boolean isLoneSurrogate(String value, int i) {
        char c = value.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 == value.length() || !Character.isLowSurrogate(value.charAt(i + 1));
        }
        return Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(value.charAt(i - 1)));
    }

    /**
     * {@code text} with each half a character ({@link #isLoneSurrogate}) as U+FFFD, the character that stands for one:
     * for outputs that carry UTF-8 as it is (CSV, metrics labels), where an encoder would make it {@code ?}.
     */
    public static String wholeCharacters(String text) {
        StringBuilder whole = null;
        for (int i = 0; i < text.length(); i++) {
            if (Character.isSurrogate(text.charAt(i)) && isLoneSurrogate(text, i)) {
                if (whole == null) {
                    whole = new StringBuilder(text);
                }
                whole.setCharAt(i, '\ufffd');
            }
        }
        return whole == null ? text : whole.toString();
    }
}
