package io.perfpin.options;

/**
 * Bounds on what a user may write in one option, agent and CLI alike: past them an option is a mistake or an
 * attack, and refusing it keeps what perfpin spends on parsing and matching small and predictable.
 */
public final class OptionLimits {
    /** The longest option text the agent takes, all its options together. */
    public static final int MAX_AGENT_OPTIONS_CHARS = 64 * 1024;
    /** The longest value of one option: a regex, a pin rule, an event list, a file name. */
    public static final int MAX_VALUE_CHARS = 4096;
    /** The most pin rules: every one may be matched against each thread that starts. */
    public static final int MAX_PIN_RULES = 64;
    /** How much of an overlong value a message shows. */
    private static final int SHOWN_CHARS = 40;

    private OptionLimits() {}

    /**
     * @param what  what the user was writing, for the message ("pin rule", "--events")
     * @param token the token that holds the value, shown cut short when it is long
     * @throws IllegalArgumentException when {@code value} is longer than {@link #MAX_VALUE_CHARS}
     */
    public static void checkLength(String what, String token, String value) {
        if (value.length() > MAX_VALUE_CHARS) {
            throw new IllegalArgumentException("bad " + what + " '" + shown(token) + "': too long (" + value.length()
                    + " characters; at most " + MAX_VALUE_CHARS + ")");
        }
    }

    /** @throws IllegalArgumentException when there are more than {@link #MAX_PIN_RULES} rules */
    public static void checkPinRules(String what, int rules) {
        if (rules > MAX_PIN_RULES) {
            throw new IllegalArgumentException(
                    "too many " + what + " rules (" + rules + "; at most " + MAX_PIN_RULES + ")");
        }
    }

    /** A token as a one-line message names it: its start, when it is too long to show whole. */
    public static String shown(String token) {
        // masked before it is cut: a cut before the '@' would leave the credentials unmarked
        String masked = UrlText.masked(token);
        return masked.length() <= SHOWN_CHARS
                ? masked
                : masked.substring(0, SHOWN_CHARS) + "... (" + token.length() + " characters)";
    }
}
