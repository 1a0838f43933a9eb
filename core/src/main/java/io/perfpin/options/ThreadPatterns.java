package io.perfpin.options;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.List;
import java.util.Set;

/**
 * Thread-name regexes as users write them in rules, agent and CLI alike: RE2 syntax (that of Java less
 * backreferences, lookaround and possessive quantifiers), matched against the whole name.
 */
public final class ThreadPatterns {
    private static final Set<String> SERVICE_THREADS = Set.of(
            "Reference Handler",
            "Finalizer",
            "Signal Dispatcher",
            "Service Thread",
            "Monitor Deflation Thread",
            "Sweeper thread",
            "Common-Cleaner",
            "Notification Thread",
            "Attach Listener",
            "DestroyJavaVM",
            "process reaper",
            "perfpin-sampler");
    private static final List<String> COMPILER_THREADS = List.of("C1 CompilerThread", "C2 CompilerThread");

    /**
     * How large a regex may grow once its counted repetitions are written out ({@link RegexSize}): matching
     * costs at most this times the name's length, and compiling it a few milliseconds.
     */
    public static final long MAX_SIZE = 10_000;

    /** RE2's words for what Java's regexes have and RE2's do not: said, so the user knows why. */
    private static final Set<String> NOT_IN_RE2 = Set.of(
            "invalid escape sequence",
            "invalid or unsupported Perl syntax",
            "invalid named capture",
            "invalid nested repetition operator");

    private ThreadPatterns() {}

    /**
     * Whether a thread is one of the JVM's own service threads or perfpin's sampler: not the application's, so
     * left out of the default thread selection (agent and CLI), counted only when a regex names it. Told by its
     * name without a regex: the agent asks this of the first threads while the JVM starts, where compiling a
     * regex in a cold JVM would cost it tens of milliseconds.
     */
    public static boolean isServiceThread(String name) {
        if (SERVICE_THREADS.contains(name)) {
            return true;
        }
        for (String compiler : COMPILER_THREADS) {
            if (name.length() > compiler.length()
                    && name.startsWith(compiler)
                    && name.chars().skip(compiler.length()).allMatch(c -> c >= '0' && c <= '9')) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param what  what the user was writing, for the message ("pin rule", "--threads")
     * @param token the whole token the user wrote, named in the message
     * @throws IllegalArgumentException one line naming the token and what is wrong with the regex
     */
    public static ThreadPattern compile(String what, String token, String regex) {
        OptionLimits.checkLength(what, token, regex);
        long size = RegexSize.of(regex);
        if (size > MAX_SIZE) {
            throw new IllegalArgumentException("bad " + what + " '" + token + "': too large once its counted"
                    + " repetitions are written out (about " + size + " elements; at most " + MAX_SIZE + ")");
        }
        SimpleRegex simple = SimpleRegex.of(regex);
        if (simple != null) {
            return new ThreadPattern(regex, null, simple); // valid RE2 too: nothing to say about it
        }
        try {
            return new ThreadPattern(regex, Pattern.compile(regex), null);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(
                    "bad " + what + " '" + token + "': not a regular expression ("
                            + e.getDescription() + ": `" + e.getPattern() + "`"
                            + (NOT_IN_RE2.contains(e.getDescription())
                                    ? "; perfpin's regexes are RE2's, without"
                                            + " backreferences, lookaround or possessive quantifiers"
                                    : "")
                            + ")",
                    e);
        }
    }
}
