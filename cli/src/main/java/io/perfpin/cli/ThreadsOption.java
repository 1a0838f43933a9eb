package io.perfpin.cli;

import io.perfpin.options.ThreadPattern;
import io.perfpin.options.ThreadPatterns;
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

    boolean selects(String threadName) {
        return regex == null ? !ThreadPatterns.isServiceThread(threadName) : regex.matches(threadName);
    }

    /** Those of {@code records} whose thread it selects, in their order. */
    List<ThreadRecord> selected(List<ThreadRecord> records) {
        return records.stream().filter(r -> selects(r.report().name())).collect(Collectors.toList());
    }

    /** For messages: what selected the threads, safe for a terminal. */
    String describe() {
        return regex == null
                ? "the application's threads (the default of --threads)"
                : "--threads '" + TerminalText.escape(regex.toString()) + "'";
    }

    static final class Regex implements ITypeConverter<ThreadPattern> {
        @Override
        public ThreadPattern convert(String token) {
            return ThreadPatterns.compile("thread regex", token, token);
        }
    }
}
