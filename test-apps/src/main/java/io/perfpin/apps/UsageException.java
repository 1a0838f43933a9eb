package io.perfpin.apps;

/** A command-line mistake: its message is one line naming the bad token and what is allowed. */
public final class UsageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    /** {@code bad --key 'token': expected what}. */
    static UsageException bad(String key, String token, String expected) {
        return new UsageException("bad --" + key + " '" + token + "': expected " + expected);
    }
}
