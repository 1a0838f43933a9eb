package io.perfpin.cli;

import io.perfpin.options.AgentOptionText;
import io.perfpin.options.ThreadPattern;
import io.perfpin.options.ThreadPatterns;
import io.perfpin.report.Recording;
import io.perfpin.report.RunRecord;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --threads REGEX}, the agent's {@code threads=}: which threads to count and show, by whole name. */
final class ThreadsOption {
    @Option(
            names = "--threads",
            paramLabel = "REGEX",
            converter = Regex.class,
            description = "Threads to count and show, by whole name (default: the application's threads, not"
                    + " the JVM's own service threads).")
    ThreadPattern regex;

    /** Whether {@link #regex} is a recording's own threads= rather than the user's --threads. */
    private boolean recorded;

    /**
     * What selects the threads of {@code recording}: --threads where it was given; else the recording's own
     * threads=, as its run record's agent options say (the last, as the agent took it), so that report shows the rows
     * that run's totals showed; else the default.
     */
    ThreadsOption forRecording(Recording recording) {
        if (regex != null) {
            return this;
        }
        List<String> values = recording
                .run()
                .map(run -> run.run().getOrDefault(RunRecord.AGENT_OPTIONS, ""))
                .map(options -> AgentOptionText.settings(options).getOrDefault("threads", List.of()))
                .orElse(List.of());
        if (values.isEmpty()) {
            return this;
        }
        String last = values.get(values.size() - 1);
        ThreadsOption own = new ThreadsOption();
        try {
            own.regex = ThreadPatterns.compile("threads option", last, last);
        } catch (IllegalArgumentException refused) {
            return this; // the agent refused it too, and counted nothing
        }
        own.recorded = true;
        return own;
    }

    boolean selects(String threadName) {
        return regex == null ? !ThreadPatterns.isServiceThread(threadName) : regex.matches(threadName);
    }

    /** Those of {@code records} whose thread it selects, in their order. */
    List<ThreadRecord> selected(List<ThreadRecord> records) {
        return records.stream().filter(r -> selects(r.report().name())).collect(Collectors.toList());
    }

    /**
     * For messages: what selected the threads, as the user wrote it; each message escapes it with the rest of its
     * text ({@link TerminalText#escape}), once, since an escaped backslash escaped again would be shown doubled.
     */
    String describe() {
        if (regex == null) {
            return "the application's threads (the default of --threads)";
        }
        String quoted = "'" + regex + "'";
        return recorded
                ? "its agent's threads=" + quoted + " (the default of --threads for a recording)"
                : "--threads " + quoted;
    }

    static final class Regex implements ITypeConverter<ThreadPattern> {
        @Override
        public ThreadPattern convert(String token) {
            return ThreadPatterns.compile("thread regex", token, token);
        }
    }
}
