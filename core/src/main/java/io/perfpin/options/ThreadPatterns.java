package io.perfpin.options;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Thread-name regexes as users write them in rules: matched against the whole name. */
public final class ThreadPatterns {
    /**
     * The JVM's own service threads and perfpin's sampler: not the application's, so left out of the default
     * thread selection (agent and CLI), counted only when a regex names them.
     */
    public static final Pattern SERVICE_THREADS = Pattern.compile("Reference Handler|Finalizer|Signal Dispatcher"
            + "|Service Thread|Monitor Deflation Thread|C[12] CompilerThread\\d+|Sweeper thread|Common-Cleaner"
            + "|Notification Thread|Attach Listener|DestroyJavaVM|process reaper|perfpin-sampler");

    private ThreadPatterns() {
    }

    /**
     * @param what  what the user was writing, for the message ("pin rule", "--threads")
     * @param token the whole token the user wrote, named in the message
     * @throws IllegalArgumentException one line naming the token and the regex error
     */
    public static Pattern compile(String what, String token, String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("bad " + what + " '" + token + "': not a regular expression ("
                    + e.getDescription() + " near index " + e.getIndex() + ")", e);
        }
    }
}
