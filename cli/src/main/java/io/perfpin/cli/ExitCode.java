package io.perfpin.cli;

/** perfpin's exit codes, listed in cli/COMMANDS.md; the troubleshooting entries are keyed by them. */
public final class ExitCode {
    public static final int OK = 0;
    /** Something failed that is not the user's input: the message says what. */
    public static final int FAILURE = 1;
    /** A bad option, event name or value: the message names the token and what is allowed. */
    public static final int USAGE = 2;
    /** No process has that pid. */
    public static final int NO_SUCH_PROCESS = 3;
    /** The process is not a JVM, or its attach mechanism does not answer. */
    public static final int NOT_A_JVM = 4;
    /** The JVM runs as another user: run perfpin as that user (or root). */
    public static final int PERMISSION_DENIED = 5;
    /**
     * The JVM runs no perfpin agent: for top, it has no stats file, or one no agent updates any more; for detach, the
     * agent says so itself through the attach channel, or the JVM never loaded a Java agent.
     */
    public static final int NO_AGENT = 6;
    /** The JVM would not load the agent, or the agent did not start in it: the JVM's stderr says why. */
    public static final int ATTACH_FAILED = 7;
    /**
     * The pid no longer names the process perfpin checked: it exited and the pid is another process's, or it
     * exec'd another program or runs as other users since. perfpin left it alone.
     */
    public static final int PROCESS_CHANGED = 8;

    private ExitCode() {
    }
}
