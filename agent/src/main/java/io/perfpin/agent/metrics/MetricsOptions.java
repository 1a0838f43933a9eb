package io.perfpin.agent.metrics;

import io.perfpin.options.AgentOptionText;
import io.perfpin.options.Durations;
import io.perfpin.options.ListenAddress;
import io.perfpin.options.OtlpEndpoint;
import io.perfpin.options.ThreadPattern;
import io.perfpin.options.ThreadPatterns;
import io.perfpin.options.UrlText;

/**
 * The agent's options for its metrics exports, none of which is on unless asked for:
 * <pre>
 *   prometheus=[HOST:]PORT  serve GET /metrics there (HOST 127.0.0.1 unless written; 0.0.0.0 is every IPv4
 *                           address and no IPv6 one, [::] every IPv6 and IPv4 address: {@link ListenAddress})
 *   otlp=URL                send OTLP/HTTP metrics to a collector (http://127.0.0.1:4318)
 *   otlp-interval=DURATION  how often (default 10s)
 *   export-threads=REGEX    threads with series of their own, as pinned threads have
 * </pre>
 */
public final class MetricsOptions {
    public static final String KEYS = "prometheus, otlp, otlp-interval, export-threads";
    private static final long DEFAULT_OTLP_INTERVAL_NANOS = 10_000_000_000L;

    private ListenAddress prometheus;
    private OtlpEndpoint otlp;
    private long otlpIntervalNanos = DEFAULT_OTLP_INTERVAL_NANOS;
    private ThreadPattern exportThreads;

    /**
     * Takes an option that is one of {@link #KEYS}.
     *
     * @return false for another key
     * @throws IllegalArgumentException one line naming the token and what is allowed
     */
    public boolean apply(AgentOptionText.Token option) {
        String token = option.text();
        String value = option.value();
        return switch (option.key()) {
            case "prometheus" -> {
                prometheus = ListenAddress.parse(value, "bad option '" + token + "'");
                yield true;
            }
            case "otlp" -> {
                // shown masked, even where it has no scheme: the notice's own masking sees only "://"
                otlp = OtlpEndpoint.parse(value, "bad option '" + option.key() + "=" + UrlText.maskedUrl(value) + "'");
                yield true;
            }
            case "otlp-interval" -> {
                otlpIntervalNanos = Durations.parse(value).toNanos();
                yield true;
            }
            case "export-threads" -> {
                exportThreads = ThreadPatterns.compile("export-threads option", token, value);
                yield true;
            }
            default -> false;
        };
    }

    /** Whether any export was asked for. */
    public boolean any() {
        return prometheus != null || otlp != null;
    }

    /** Null when not asked for. */
    public ListenAddress prometheus() {
        return prometheus;
    }

    /** Null when not asked for. */
    public OtlpEndpoint otlp() {
        return otlp;
    }

    public long otlpIntervalNanos() {
        return otlpIntervalNanos;
    }

    /** Null for none. */
    public ThreadPattern exportThreads() {
        return exportThreads;
    }
}
