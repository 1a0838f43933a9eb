package io.perfpin.options;

import java.util.ArrayList;
import java.util.List;

/**
 * The regexes that most thread rules are, matched without RE2/J: alternatives ({@code ping|pong}) each of which is a
 * literal, alone or followed by one tail that matches the rest of the name ({@code .*}, {@code .+}) or its digits
 * ({@code \d*}, {@code \d+}, {@code [0-9]*}, {@code [0-9]+}). Compiling a regex with RE2/J and its first match cost a
 * cold JVM about 14 ms, in the agent's premain and on the thread that starts; these cost a comparison. The match is
 * RE2's, of the whole name: {@code .} is any character but a line feed, {@code \d} an ASCII digit.
 */
final class SimpleRegex {
    /** The characters that mean more than themselves in RE2's syntax, outside a class. */
    private static final String META = "\\.+*?()|[]{}^$";

    private static final String[] TAILS = {".*", ".+", "\\d*", "\\d+", "[0-9]*", "[0-9]+"};
    private static final int NO_TAIL = -1;

    private final String[] literals;
    /** Per alternative, the index of its tail in {@link #TAILS}, or {@link #NO_TAIL}. */
    private final int[] tails;

    private SimpleRegex(String[] literals, int[] tails) {
        this.literals = literals;
        this.tails = tails;
    }

    /** The regex as literal alternatives; null when it is anything else, which RE2/J then compiles and matches. */
    static SimpleRegex of(String regex) {
        List<String> alternatives = new ArrayList<>();
        int from = 0;
        // a '|' is always an alternation here: a literal holds no escape, and a tail no '|'
        for (int bar = regex.indexOf('|'); bar >= 0; bar = regex.indexOf('|', from)) {
            alternatives.add(regex.substring(from, bar));
            from = bar + 1;
        }
        alternatives.add(regex.substring(from));
        String[] literals = new String[alternatives.size()];
        int[] tails = new int[alternatives.size()];
        for (int i = 0; i < literals.length; i++) {
            String alternative = alternatives.get(i);
            tails[i] = tailOf(alternative);
            literals[i] = tails[i] == NO_TAIL
                    ? alternative
                    : alternative.substring(0, alternative.length() - TAILS[tails[i]].length());
            for (int c = 0; c < literals[i].length(); c++) {
                if (META.indexOf(literals[i].charAt(c)) >= 0) {
                    return null;
                }
            }
        }
        return new SimpleRegex(literals, tails);
    }

    private static int tailOf(String alternative) {
        for (int t = 0; t < TAILS.length; t++) {
            if (alternative.endsWith(TAILS[t])) {
                return t;
            }
        }
        return NO_TAIL;
    }

    /** Whether the whole name matches. */
    boolean matches(String name) {
        for (int i = 0; i < literals.length; i++) {
            if (name.startsWith(literals[i]) && tailMatches(tails[i], name, literals[i].length())) {
                return true;
            }
        }
        return false;
    }

    private static boolean tailMatches(int tail, String name, int from) {
        boolean some = name.length() > from;
        return switch (tail) {
            case NO_TAIL -> !some;
            case 0 -> noLineFeed(name, from);
            case 1 -> some && noLineFeed(name, from);
            case 2, 4 -> digits(name, from);
            default -> some && digits(name, from);
        };
    }

    private static boolean noLineFeed(String name, int from) {
        return name.indexOf('\n', from) < 0;
    }

    private static boolean digits(String name, int from) {
        for (int i = from; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
