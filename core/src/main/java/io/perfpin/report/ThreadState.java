package io.perfpin.report;

import java.util.Locale;

/**
 * Whether a thread still ran when its counts were taken, as records show it ({@code "state"}). A final record of a
 * thread that is {@link #RUNNING} is one whose counting stopped while it ran: the agent detached, the JVM exited
 * around it, or stat ended.
 */
public enum ThreadState {
    RUNNING,
    ENDED;

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for a text that is neither */
    public static ThreadState of(String text) {
        for (ThreadState state : values()) {
            if (state.text().equals(text)) {
                return state;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not running or ended");
    }
}
