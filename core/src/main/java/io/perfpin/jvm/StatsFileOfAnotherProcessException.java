package io.perfpin.jvm;

import java.io.IOException;

/**
 * The stats file found where a JVM's agent keeps its own says another process wrote it: a JVM of another pid
 * namespace with the same pid, or a JVM that ended before the one asked about took its pid. Its counts are never
 * shown as the asked JVM's.
 */
public final class StatsFileOfAnotherProcessException extends IOException {
    public StatsFileOfAnotherProcessException(String message) {
        super(message);
    }
}
