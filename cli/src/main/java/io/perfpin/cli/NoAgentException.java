package io.perfpin.cli;

import io.perfpin.files.NamedFile;
import java.nio.file.Path;

/** No perfpin agent runs in the JVM (exit code {@link ExitCode#NO_AGENT}). */
final class NoAgentException extends Exception {
    private static final long serialVersionUID = 1L;

    /** For a command that reads the stats file, and found none. */
    NoAgentException(long pid, Path statsFile) {
        this(pid, "no stats file at " + statsFile);
    }

    /** {@code why}: how it is known, a parenthesis of the message; empty for none. */
    NoAgentException(long pid, String why) {
        this(pid, why, true);
    }

    /** For {@code top --stats FILE}, where FILE is not there: {@code missing}, the line that says so. */
    static NoAgentException noStatsFile(NamedFile.Refused missing) {
        return new NoAgentException(missing.getMessage());
    }

    private NoAgentException(String message) {
        super(message);
    }

    /**
     * @param attachable whether the JVM accepts an attach: where it does not, perfpin attach could load no agent,
     *                   and is not suggested
     */
    NoAgentException(long pid, String why, boolean attachable) {
        super("process " + pid + " runs no perfpin agent" + (why.isEmpty() ? "" : " (" + why + ")") + ": start it with"
                + " -javaagent:<path to perfpin-agent.jar>"
                + (attachable
                        ? ", or perfpin attach " + pid
                        : " (it runs with -XX:+DisableAttachMechanism: perfpin attach cannot load one)"));
    }
}
