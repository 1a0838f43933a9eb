package io.perfpin.jvm;

import java.io.IOException;

/** Why another JVM's threads could not be read: a one-line message and a category to map to an exit code. */
public final class AttachException extends IOException {
    private static final long serialVersionUID = 1L;

    public enum Category {
        /** No process has that pid, or it exited while we attached. */
        NO_SUCH_PROCESS,
        /** The process is not a HotSpot JVM, or its attach mechanism is off, not ready or not answering. */
        NOT_A_JVM,
        /** The JVM belongs to another user or group: only they, or root, may attach. */
        PERMISSION_DENIED,
        /** The JVM answered, but would not load the agent (dynamic loading disabled, or the agent failed). */
        AGENT_LOAD_FAILED,
        /**
         * The JVM accepts no attach ({@code -XX:+DisableAttachMechanism}), or its listener did not start after one
         * SIGQUIT, or a trigger file that another user planted keeps it from starting.
         */
        ATTACH_REFUSED
    }

    private final Category category;

    AttachException(Category category, String message) {
        super(message);
        this.category = category;
    }

    public Category category() {
        return category;
    }
}
