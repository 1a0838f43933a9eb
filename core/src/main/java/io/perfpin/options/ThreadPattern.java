package io.perfpin.options;

import com.google.re2j.Pattern;

/**
 * A rule on thread names (or, for {@code class=}, class names) as a user wrote it: a regex matched against
 * the whole name by a linear-time engine (RE2/J), so that matching costs at most the name's length times the
 * regex's size, whatever either holds; it runs on the thread that starts, before its first instruction. A regex of
 * literal alternatives is matched without RE2/J ({@link SimpleRegex}), as RE2/J would. {@link ThreadPatterns#compile}
 * makes one.
 */
public final class ThreadPattern {
    /** Tails after which a name's digits are all matched, whatever they are. */
    private static final String[] DIGITS_TAILS = {".*", ".+", "\\d*", "\\d+", "[0-9]*", "[0-9]+"};

    private final String source;
    /** Null where {@link #simple} matches. */
    private final Pattern regex;

    private final SimpleRegex simple;
    private final boolean blindToDigitSuffix;

    ThreadPattern(String source, Pattern regex, SimpleRegex simple) {
        this.source = source;
        this.regex = regex;
        this.simple = simple;
        this.blindToDigitSuffix = blindToDigitSuffix(source);
    }

    /**
     * Whether two names that differ only in the digits they end with (one or more: {@code pool-7} and
     * {@code pool-12}, not {@code pool-}) always both match or both not, so that the answer for one holds for
     * all, as the agent's thread enrolment in C keeps it. Told from the regex once, conservatively: true when the
     * regex is some part that can match no digit (no digit, {@code .}, escape or class in it), followed by nothing
     * or by one of the {@link #DIGITS_TAILS}. That part then matches a prefix of the name without its digits, and
     * the tail matches the digits, whichever they are, or no name with digits matches at all.
     */
    public boolean blindToDigitSuffix() {
        return blindToDigitSuffix;
    }

    static boolean blindToDigitSuffix(String regex) {
        String head = regex;
        for (String tail : DIGITS_TAILS) {
            if (regex.endsWith(tail)) {
                head = regex.substring(0, regex.length() - tail.length());
                break;
            }
        }
        for (int i = 0; i < head.length(); i++) {
            char c = head.charAt(i);
            if (c >= '0' && c <= '9' || c == '.' || c == '\\' || c == '[') {
                return false;
            }
        }
        return true;
    }

    /** Whether the whole name matches. */
    public boolean matches(String name) {
        return simple != null ? simple.matches(name) : regex.matches(name);
    }

    /** The regex as the user wrote it. */
    @Override
    public String toString() {
        return source;
    }
}
