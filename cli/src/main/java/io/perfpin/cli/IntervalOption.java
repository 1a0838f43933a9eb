package io.perfpin.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code --interval DURATION}, the agent's {@code interval=}: the time between two samples. */
final class IntervalOption {
    @Option(
            names = "--interval",
            paramLabel = "DURATION",
            converter = DurationOption.Parser.class,
            description = "Time between samples, e.g. 100ms, 1s; the command's description gives its default.")
    Duration interval;

    Duration orElse(Duration fallback) {
        return interval != null ? interval : fallback;
    }
}
