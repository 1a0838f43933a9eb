package io.perfpin.cli;

import io.perfpin.options.ThreadPatterns;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

import java.util.regex.Pattern;

/** {@code --threads REGEX}, the agent's {@code threads=}: which threads to count and show, by whole name. */
final class ThreadsOption {
    @Option(names = "--threads", paramLabel = "REGEX", converter = Regex.class,
            description = "Threads to count and show, by whole name (default: the application's threads, not"
                    + " the JVM's own service threads).")
    Pattern regex;

    boolean selects(String threadName) {
        return regex == null ? !ThreadPatterns.SERVICE_THREADS.matcher(threadName).matches()
                : regex.matcher(threadName).matches();
    }

    /** For messages: what selected the threads. */
    String describe() {
        return regex == null ? "the application's threads (the default of --threads)" : "--threads '" + regex + "'";
    }

    static final class Regex implements ITypeConverter<Pattern> {
        @Override
        public Pattern convert(String token) {
            return ThreadPatterns.compile("thread regex", token, token);
        }
    }
}
