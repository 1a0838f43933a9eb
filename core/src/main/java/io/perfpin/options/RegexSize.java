package io.perfpin.options;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How large a regex grows once its counted repetitions are written out, estimated from its text before it is
 * compiled. RE2/J matches in time linear in the name, but it compiles {@code x{1000}} into a thousand copies of
 * {@code x}, and nested counts multiply: {@code ((a{1000}){1000}){1000}} would fill any heap before a match
 * began. Each literal, escape, class or {@code .} counts 1, a group the sum of its parts, {@code {n,m}} multiplies
 * what it repeats by its larger bound. Where the text is read differently from RE2 (a class, {@code \Q...\E}),
 * RE2 either reads it the same way or refuses the regex before compiling it; so the compiled program stays
 * within a small factor of the estimate (RegexSizeTest holds it to four times on random regexes).
 */
final class RegexSize {
    /** Beyond what RE2 accepts as a count ({@code {1001}} is a syntax error), so a bad count is its error, not ours. */
    private static final long MAX_COUNT = 1000;
    /** Saturation: far above any limit, far below overflow. */
    private static final long CAP = 1L << 40;

    private RegexSize() {}

    static long of(String regex) {
        Deque<long[]> groups = new ArrayDeque<>(); // each {sum of finished parts, size of the last part}
        long[] group = {0, 0};
        int i = 0;
        int n = regex.length();
        while (i < n) {
            char c = regex.charAt(i);
            int count = c == '{' ? countEnd(regex, i) : -1;
            if (count > 0 && group[1] > 0) {
                group[1] = Math.min(CAP, group[1] * repeats(regex.substring(i + 1, count)));
                i = count + 1;
                continue;
            }
            switch (c) {
                case '(' -> {
                    groups.push(group);
                    group = new long[] {0, 0};
                    i++;
                }
                case ')' -> {
                    long size = Math.min(CAP, group[0] + group[1] + 1);
                    if (!groups.isEmpty()) {
                        group = groups.pop();
                    }
                    next(group, size);
                    i++;
                }
                case '|' -> {
                    next(group, 0);
                    i++;
                }
                case '*', '+', '?' -> i++;
                case '\\' -> {
                    if (i + 1 < n && regex.charAt(i + 1) == 'Q') {
                        int end = regex.indexOf("\\E", i + 2);
                        int stop = end < 0 ? n : end;
                        for (int q = i + 2; q < stop; q++) {
                            next(group, 1);
                        }
                        i = end < 0 ? n : end + 2;
                    } else {
                        next(group, 1);
                        i = escapeEnd(regex, i);
                    }
                }
                case '[' -> {
                    next(group, 1);
                    i = classEnd(regex, i);
                }
                default -> {
                    next(group, 1);
                    i++;
                }
            }
        }
        long total = group[0] + group[1];
        while (!groups.isEmpty()) {
            long[] outer = groups.pop();
            total = Math.min(CAP, total + outer[0] + outer[1]);
        }
        return total;
    }

    /** The last part is done; {@code size} is the one a count may now repeat. */
    private static void next(long[] group, long size) {
        group[0] = Math.min(CAP, group[0] + group[1]);
        group[1] = size;
    }

    /**
     * The index of the {@code '}'} closing a count {@code {n}}, {@code {n,}} or {@code {n,m}} at {@code open}; -1 if
     * none.
     */
    private static int countEnd(String regex, int open) {
        int i = open + 1;
        int digits = 0;
        while (i < regex.length() && isDigit(regex.charAt(i))) {
            i++;
            digits++;
        }
        if (digits == 0) {
            return -1;
        }
        if (i < regex.length() && regex.charAt(i) == ',') {
            i++;
            while (i < regex.length() && isDigit(regex.charAt(i))) {
                i++;
            }
        }
        return i < regex.length() && regex.charAt(i) == '}' ? i : -1;
    }

    /** {@code n}, {@code n,} or {@code n,m}: the most copies it writes out, at least one. */
    private static long repeats(String bounds) {
        long most = 1;
        for (String bound : bounds.split(",", -1)) {
            if (!bound.isEmpty()) {
                // A count past MAX_COUNT is RE2's syntax error; only its length matters here.
                most = Math.max(most, bound.length() > 4 ? MAX_COUNT : Math.min(MAX_COUNT, Long.parseLong(bound)));
            }
        }
        return bounds.endsWith(",") ? most + 1 : most;
    }

    /** Past {@code \x}, {@code \pL}, {@code \p{Greek}} or {@code \x{1F600}}. */
    private static int escapeEnd(String regex, int backslash) {
        int i = backslash + 2;
        if (i <= regex.length()
                && "pPx".indexOf(regex.charAt(i - 1)) >= 0
                && i < regex.length()
                && regex.charAt(i) == '{') {
            int close = regex.indexOf('}', i);
            return close < 0 ? regex.length() : close + 1;
        }
        return Math.min(i, regex.length());
    }

    /** Past a class such as {@code [^]a-z\]]} or {@code [[:alpha:]_]}: nothing inside it groups or repeats. */
    private static int classEnd(String regex, int open) {
        int i = open + 1;
        if (i < regex.length() && regex.charAt(i) == '^') {
            i++;
        }
        if (i < regex.length() && regex.charAt(i) == ']') {
            i++;
        }
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == ']') {
                return i + 1;
            }
            if (c == '\\') {
                i = escapeEnd(regex, i);
            } else if (c == '[' && regex.startsWith("[:", i) && regex.indexOf(":]", i + 2) > 0) {
                i = regex.indexOf(":]", i + 2) + 2;
            } else {
                i++;
            }
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
