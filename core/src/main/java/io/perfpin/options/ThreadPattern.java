package io.perfpin.options;

import com.google.re2j.Pattern;

/**
 * A rule on thread names (or, for {@code class=}, class names) as a user wrote it: a regex matched against
 * the whole name by a linear-time engine (RE2/J), so that matching costs at most the name's length times the
 * regex's size, whatever either holds; it runs on the thread that starts, before its first instruction.
 * {@link ThreadPatterns#compile} makes one.
 */
public final class ThreadPattern {
    private final Pattern regex;

    ThreadPattern(Pattern regex) {
        this.regex = regex;
    }

    /** Whether the whole name matches. */
    public boolean matches(String name) {
        return regex.matches(name);
    }

    /** The regex as the user wrote it. */
    @Override
    public String toString() {
        return regex.pattern();
    }
}
