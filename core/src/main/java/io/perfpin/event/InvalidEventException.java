package io.perfpin.event;

/**
 * An event string perfpin cannot encode: bad syntax, a value that does not fit its field, a modifier that does not
 * exist. The message is one line naming the bad token and what is allowed, ready to show the user.
 */
public class InvalidEventException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidEventException(String message) {
        super(message);
    }
}
