package io.perfpin.cli;

import io.perfpin.options.ThreadPattern;
import io.perfpin.options.ThreadPatterns;
import io.perfpin.report.TerminalText;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --threads REGEX}, the agent's {@code threads=}: which threads to count and show, by whole name. */
final class ThreadsOption {
    @Option(names = "--threads", paramLabel = "REGEX", converter = Regex.class,
            description = "Threads to count and show, by whole name (default: the application's threads, not"
                    + " the JVM's own service threads).")
    ThreadPattern regex;

    boolean selects(String threadName) {
        return regex == null ? !ThreadPatterns.isServiceThread(threadName) : regex.matches(threadName);
    }

    /** For messages: what selected the threads, safe for a terminal. */
    String describe() {
        return regex == null ? "the application's threads (the default of --threads)"
                : "--threads '" + TerminalText.escape(regex.toString()) + "'";
    }

    static final class Regex implements ITypeConverter<ThreadPattern> {
        @Override
        public ThreadPattern convert(String token) {
            return ThreadPatterns.compile("thread regex", token, token);
        }
    }
}
