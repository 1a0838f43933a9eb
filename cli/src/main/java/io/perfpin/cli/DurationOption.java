package io.perfpin.cli;

import io.perfpin.options.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --duration DURATION}, the agent's {@code duration=}: how long a command counts or watches. */
final class DurationOption {
    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            converter = Parser.class,
            description = "How long, e.g. 500ms, 5s, 2m (units ns, us, ms, s, m); the command's description"
                    + " gives its default.")
    Duration duration;

    Duration orElse(Duration fallback) {
        return duration != null ? duration : fallback;
    }

    /** Null when the user gave none. */
    Duration given() {
        return duration;
    }

    /** Perfpin's duration syntax, shared by every option that takes a duration. */
    static final class Parser implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String token) {
            return Durations.parse(token);
        }
    }
}
