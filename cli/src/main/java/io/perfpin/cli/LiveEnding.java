package io.perfpin.cli;

import io.perfpin.stats.StatsClosing;
import java.util.Locale;

/**
 * Why a live view ended ({@link LiveView}): the words its summary's heading says it in, the label of the threads
 * that still ran when counting stopped, and the exit code of a {@code top} that it ends. Every ending is a success:
 * the view showed what there was to see. A signal ends the view as {@code q} does, and the JVM's exit then is the
 * signal's own (130, 143), whatever the command returns.
 */
enum LiveEnding {
    /** The agent closed its stats file while its JVM runs on. */
    DETACHED("the agent detached", "running at detach"),
    /** The agent closed its stats file as its JVM exited. */
    EXITED("the JVM exited", "running at exit"),
    /** The JVM is gone and its stats file still open: it was killed, and its agent said nothing more. */
    KILLED("process %d is gone and never closed its stats file (killed?)", null),
    DURATION_PASSED("--duration passed", null),
    /** A signal (Ctrl-C, SIGTERM) or {@code q}. */
    STOPPED("stopped", null);

    private final String message;
    private final String runningLabel;

    LiveEnding(String message, String runningLabel) {
        this.message = message;
        this.runningLabel = runningLabel;
    }

    /**
     * Why the agent closed its stats file, as the file says: the JVM's exit, whose shutdown hook closes it while the
     * JVM still runs its other hooks, or a detach, after which it runs on.
     */
    static LiveEnding of(StatsClosing closing) {
        return closing == StatsClosing.AT_EXIT ? EXITED : DETACHED;
    }

    /** In words, for the JVM {@code pid}. */
    String message(long pid) {
        return String.format(Locale.ROOT, message, pid);
    }

    /**
     * What the summary calls the threads that still ran as counting stopped, where it stopped while they ran; null
     * where they run on, and need no word.
     */
    String runningLabel() {
        return runningLabel;
    }

    int exitCode() {
        return ExitCode.OK;
    }
}
