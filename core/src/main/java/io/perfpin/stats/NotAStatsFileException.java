package io.perfpin.stats;

import java.io.IOException;

/**
 * A file that is not a perfpin stats file: another kind of file, too short for a header, or a header of another
 * format. Its message is the user's line; its type is what callers and tests act on.
 */
public final class NotAStatsFileException extends IOException {
    private static final long serialVersionUID = 1L;

    public NotAStatsFileException(String message) {
        super(message);
    }
}
