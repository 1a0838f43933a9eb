package io.perfpin.options;

/**
 * How many counted virtual threads may be alive at once, as the agent's {@code virtual-max=} and the CLI's
 * {@code --virtual-max} spell it. perfpin's C library keeps a state for each, some 200 bytes with one event and 400
 * with six: the default bounds them at 50 to 100 MB, where a million parked ones would take hundreds.
 */
public final class VirtualMax {
    public static final int DEFAULT = 250_000;
    public static final int MAX = 10_000_000;
    public static final String ALLOWED = "a whole number of virtual threads from 1 to " + MAX;

    private VirtualMax() {}

    /**
     * @param token the whole option the user wrote, named in the message
     * @throws IllegalArgumentException one line naming the token and what is allowed
     */
    public static int parse(String token, String value) {
        int n = valueOf(value);
        if (n < 0) {
            throw new IllegalArgumentException("bad option '" + token + "': expected " + ALLOWED);
        }
        return n;
    }

    /**
     * A command-line option's value, such as {@code --virtual-max}'s.
     *
     * @throws IllegalArgumentException one line naming the value and what is allowed
     */
    public static int parse(String value) {
        int n = valueOf(value);
        if (n < 0) {
            throw new IllegalArgumentException("bad count '" + value + "': expected " + ALLOWED);
        }
        return n;
    }

    /** -1 for anything but the digits of a number from 1 to {@link #MAX}, as written ({@code +5}, {@code 05}: no). */
    private static int valueOf(String value) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return -1;
        }
        return n >= 1 && n <= MAX && value.equals(Integer.toString(n)) ? n : -1;
    }
}
