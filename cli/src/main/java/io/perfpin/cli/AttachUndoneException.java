package io.perfpin.cli;

import io.perfpin.jvm.AgentPresence;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.JavaProcess;

/**
 * An attach that failed, and what perfpin then did so that the JVM is left as it was found: the agent that attach
 * loaded is detached (nothing pinned, no descriptor of its own left). One line says both; the exit code is the
 * failure's own ({@link #getCause}).
 */
final class AttachUndoneException extends Exception {
    private static final long serialVersionUID = 1L;

    private AttachUndoneException(Exception failure, String undone) {
        super(failure.getMessage() + "; " + undone, failure);
    }

    /**
     * Detaches the agent from {@code jvm} after {@code failure}, where one runs there by its own word. Returns what
     * to throw: {@code failure} itself where no agent runs (it did not start, or the JVM is gone), else the failure
     * with the detach's outcome.
     *
     * @param loaded    whether this attach loaded the agent; otherwise it ran before, and --detach-on-exit asks this
     * @param restarted whether --restart detached the agent that ran before this attach loaded its own
     */
    static Exception detaching(JavaProcess jvm, Exception failure, boolean loaded, boolean restarted) {
        long pid = jvm.pid();
        try {
            if (!AgentPresence.runs(pid, AgentSession.ATTACH_TIMEOUT)) {
                return failure;
            }
            AgentSession.detach(jvm);
        } catch (Exception e) {
            if (e instanceof AttachException
                    && ((AttachException) e).category() == AttachException.Category.NO_SUCH_PROCESS) {
                return failure; // it exited: nothing of perfpin's is left in it
            }
            return new AttachUndoneException(failure, "and its agent could not be detached: " + e.getMessage());
        }
        if (!loaded) {
            return new AttachUndoneException(failure, "the agent is detached (--detach-on-exit)");
        }
        return new AttachUndoneException(
                failure,
                "the agent that perfpin loaded is detached, leaving process " + pid
                        + (restarted
                                ? " with no agent (the one that ran before --restart is not restored)"
                                : " as perfpin found it"));
    }
}
