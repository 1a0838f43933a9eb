package io.perfpin.cli;

import io.perfpin.options.ListenAddress;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.options.ThreadPattern;
import io.perfpin.options.UrlText;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * What {@code run} and {@code attach} ask of the agent's metrics exports, with the agent's words: {@code --prometheus}
 * is {@code prometheus=}, {@code --otlp} {@code otlp=}, {@code --otlp-interval} {@code otlp-interval=},
 * {@code --export-threads} {@code export-threads=}. None is on unless given.
 */
final class ExportOptions {
    @Option(
            names = "--prometheus",
            paramLabel = "[HOST:]PORT",
            converter = Address.class,
            description = "The agent serves GET /metrics there for Prometheus; HOST is 127.0.0.1 unless given"
                    + " (0.0.0.0 for every IPv4 address, [::] for every IPv6 and IPv4 one).")
    ListenAddress prometheus;

    @Option(
            names = "--otlp",
            paramLabel = "URL",
            converter = Url.class,
            description = "The agent sends OTLP/HTTP metrics to this OpenTelemetry collector, e.g."
                    + " http://127.0.0.1:4318.")
    OtlpEndpoint otlp;

    @Option(
            names = "--otlp-interval",
            paramLabel = "DURATION",
            converter = DurationOption.Parser.class,
            description = "How often the agent sends to --otlp (default 10s).")
    Duration otlpInterval;

    @Option(
            names = "--export-threads",
            paramLabel = "REGEX",
            converter = ThreadsOption.Regex.class,
            description = "Threads exported with series of their own, as pinned ones are; the others are summed by"
                    + " group (their name less its numeric suffix).")
    ThreadPattern exportThreads;

    /** The agent's options these flags stand for, key to value, in the agent's order. */
    Map<String, String> agentOptions() {
        Map<String, String> options = new LinkedHashMap<>();
        if (prometheus != null) {
            options.put("prometheus", prometheus.toString());
        }
        if (otlp != null) {
            options.put("otlp", otlp.toString());
        }
        if (otlpInterval != null) {
            options.put("otlp-interval", otlpInterval.toNanos() + "ns");
        }
        if (exportThreads != null) {
            options.put("export-threads", exportThreads.toString());
        }
        return options;
    }

    static final class Address implements ITypeConverter<ListenAddress> {
        @Override
        public ListenAddress convert(String token) {
            return ListenAddress.parse(token, "bad address '" + token + "'");
        }
    }

    static final class Url implements ITypeConverter<OtlpEndpoint> {
        @Override
        public OtlpEndpoint convert(String token) {
            return OtlpEndpoint.parse(token, "bad URL '" + UrlText.maskedUrl(token) + "'");
        }
    }
}
