package io.perfpin.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one JSON value, strictly (RFC 8259: no comments, trailing commas, single quotes, leading zeros or
 * text after the value), so that a line cut short by a crash is told apart from a complete record. Objects
 * become {@code LinkedHashMap<String, Object>} in file order, arrays {@code List<Object>}, whole numbers
 * {@code Long}, other numbers {@code Double}, and {@code true}, {@code false}, {@code null} themselves.
 * Enough for perfpin's own records ({@link Json}); no dependency for a few hundred bytes a line.
 */
public final class JsonReader {
    /** Deeper nesting than any record perfpin writes is a sign of a wrong file, not a reason to overflow. */
    private static final int MAX_DEPTH = 64;

    private final String text;
    private int at;

    private JsonReader(String text) {
        this.text = text;
    }

    /** @throws IllegalArgumentException saying what was expected at which character */
    public static Object parse(String text) {
        JsonReader reader = new JsonReader(text);
        reader.skipSpace();
        Object value = reader.value(0);
        reader.skipSpace();
        if (reader.at < text.length()) {
            throw reader.error("end of input");
        }
        return value;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("at most " + MAX_DEPTH + " levels of nesting");
        }
        if (at >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    yield number();
                }
                throw error("a value");
            }
        };
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> object = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (peek('}')) {
            at++;
            return object;
        }
        while (true) {
            skipSpace();
            if (!peek('"')) {
                throw error("a string key");
            }
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            if (object.containsKey(key)) {
                throw error("each key once, not '" + key + "' again");
            }
            object.put(key, value(depth + 1));
            skipSpace();
            if (peek(',')) {
                at++;
            } else {
                expect('}');
                return object;
            }
        }
    }

    private List<Object> array(int depth) {
        List<Object> array = new ArrayList<>();
        at++;
        skipSpace();
        if (peek(']')) {
            at++;
            return array;
        }
        while (true) {
            skipSpace();
            array.add(value(depth + 1));
            skipSpace();
            if (peek(',')) {
                at++;
            } else {
                expect(']');
                return array;
            }
        }
    }

    private String string() {
        at++;
        StringBuilder s = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("a closing '\"'");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return s.toString();
            }
            if (c < 0x20) {
                throw error("no raw control character in a string");
            }
            if (c != '\\') {
                s.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("an escape");
            }
            char escape = text.charAt(at++);
            switch (escape) {
                case '"', '\\', '/' -> s.append(escape);
                case 'b' -> s.append('\b');
                case 'f' -> s.append('\f');
                case 'n' -> s.append('\n');
                case 'r' -> s.append('\r');
                case 't' -> s.append('\t');
                case 'u' -> s.append(unicodeEscape());
                default -> {
                    at--;
                    throw error("an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX");
                }
            }
        }
    }

    private char unicodeEscape() {
        if (at + 4 > text.length()) {
            throw error("four hex digits");
        }
        int code = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(at), 16);
            if (digit < 0) {
                throw error("four hex digits");
            }
            code = code * 16 + digit;
            at++;
        }
        return (char) code;
    }

    private Object number() {
        int start = at;
        if (peek('-')) {
            at++;
        }
        if (peek('0')) {
            at++;
        } else if (!digits()) {
            throw error("a digit");
        }
        boolean whole = true;
        if (peek('.')) {
            at++;
            whole = false;
            if (!digits()) {
                throw error("a digit after '.'");
            }
        }
        if (peek('e') || peek('E')) {
            at++;
            whole = false;
            if (peek('+') || peek('-')) {
                at++;
            }
            if (!digits()) {
                throw error("a digit in the exponent");
            }
        }
        String number = text.substring(start, at);
        if (whole) {
            try {
                return Long.parseLong(number);
            } catch (NumberFormatException tooLong) {
                // beyond a long: keep its magnitude as a double
            }
        }
        return Double.parseDouble(number);
    }

    private boolean digits() {
        int start = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        return at > start;
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("a value");
        }
        at += word.length();
        return value;
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "'");
        }
        at++;
    }

    private void skipSpace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private IllegalArgumentException error(String expected) {
        String found = at >= text.length() ? "the end" : "'" + text.charAt(at) + "'";
        return new IllegalArgumentException("expected " + expected + " at character " + (at + 1) + ", found " + found);
    }
}
