package io.perfpin.cli;

/** The JVM took the agent but the agent did not start: its reason is on the JVM's stderr. */
final class AgentNotStartedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    AgentNotStartedException(long pid, String evidence) {
        super("the agent did not start in process " + pid + " (" + evidence + "); the JVM's stderr has a [perfpin]"
                + " line that says why");
    }
}
