package io.perfpin.event;

import java.util.List;
import java.util.Objects;

/**
 * A name no event source knows: not a perf generic name, preset, raw code, sysfs PMU, PMU term or libpfm4 event.
 * Carries the nearest valid names so that a typo gets a useful answer.
 */
public class UnknownEventException extends InvalidEventException {
    private static final long serialVersionUID = 1L;

    private final String token;
    private final String reason;
    private final List<String> nearest;

    /** An unknown event name, no more said. */
    public UnknownEventException(String token) {
        this(token, null);
    }

    /** An unknown event name and why the source asked could not know it (libpfm4 missing, say). */
    public UnknownEventException(String token, String reason) {
        this("event", token, reason, List.of());
    }

    /**
     * @param kind    what the token was taken for: "event", "PMU", "term of cpu"...
     * @param reason  why it is unknown, or null
     * @param nearest valid names closest to the token, best first
     */
    public UnknownEventException(String kind, String token, String reason, List<String> nearest) {
        super(message(kind, token, reason, nearest));
        this.token = Objects.requireNonNull(token, "token");
        this.reason = reason;
        this.nearest = List.copyOf(nearest);
    }

    public String token() {
        return token;
    }

    /** Why the name is unknown, beyond not being in any table; null when there is nothing more to say. */
    public String reason() {
        return reason;
    }

    /** Valid names closest to the token, best first; empty when none is close. */
    public List<String> nearest() {
        return nearest;
    }

    private static String message(String kind, String token, String reason, List<String> nearest) {
        StringBuilder s = new StringBuilder("unknown ")
                .append(kind)
                .append(" '")
                .append(token)
                .append('\'');
        if (reason != null && !reason.isEmpty()) {
            s.append(" (").append(reason).append(')');
        }
        if (!nearest.isEmpty()) {
            s.append("; did you mean ").append(String.join(", ", nearest)).append('?');
        }
        return s.toString();
    }
}
