package io.perfpin.stats;

import java.io.IOException;

/**
 * A stats file that its agent is still making: created, but not yet sized or its header not yet written. A viewer of
 * a JVM whose agent runs waits for it; its message is the user's line otherwise.
 */
public final class StatsFileBeingCreatedException extends IOException {
    private static final long serialVersionUID = 1L;

    public StatsFileBeingCreatedException(String message) {
        super(message);
    }
}
