package io.perfpin.cli;

import java.nio.file.Path;

/** The JVM has no stats file: no perfpin agent runs in it (exit code {@link ExitCode#NO_AGENT}). */
final class NoAgentException extends Exception {
    private static final long serialVersionUID = 1L;

    NoAgentException(long pid, Path statsFile) {
        super("process " + pid + " runs no perfpin agent (no stats file at " + statsFile + "): start it with"
                + " -javaagent:<path to perfpin-agent.jar>, or perfpin attach " + pid);
    }
}
