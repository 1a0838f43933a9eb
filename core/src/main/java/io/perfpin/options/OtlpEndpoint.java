package io.perfpin.options;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Where the OpenTelemetry export sends its metrics, as {@code otlp=} and {@code --otlp} spell it: the URL of an
 * OTLP/HTTP receiver, a collector on this host or its network, in plain HTTP (the collector's own exporters are
 * where TLS and credentials belong). A URL that names no path gets OpenTelemetry's {@code /v1/metrics}, as the SDK's
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} does; a port left out is the scheme's. Credentials do not belong in the
 * options, which the stats file and {@code ps} show: a URL with them is refused, and so is one with a query, where
 * receivers take API keys; the refusal shows it masked ({@link UrlText}).
 */
public final class OtlpEndpoint {
    public static final String ALLOWED = "an http:// URL of an OTLP/HTTP receiver without credentials or query, such"
            + " as http://127.0.0.1:4318 (/v1/metrics is added when it names no path)";
    public static final String METRICS_PATH = "/v1/metrics";
    /** A TCP port is 16 bits; URI takes any number of digits, so a wrong one would fail only at each export. */
    private static final int MAX_PORT = 65535;

    private final URI uri;

    private OtlpEndpoint(URI uri) {
        this.uri = uri;
    }

    /**
     * @param bad how a message about it begins, naming what the user wrote with {@link UrlText#maskedUrl}:
     *            {@code bad option 'KEY=VALUE'} for the agent's option, {@code bad URL 'VALUE'} for a command line's
     * @throws IllegalArgumentException one line naming what the user wrote and what is allowed
     */
    public static OtlpEndpoint parse(String value, String bad) {
        OptionLimits.checkLength("URL", UrlText.maskedUrl(value), value);
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(bad + ": not a URL (" + e.getReason() + "); expected " + ALLOWED);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") || uri.getHost() == null) {
            throw new IllegalArgumentException(bad + ": expected " + ALLOWED);
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException(
                    bad + ": credentials in the URL would show in the agent's options;" + " expected " + ALLOWED);
        }
        if (uri.getRawQuery() != null) {
            throw new IllegalArgumentException(bad + ": a query in the URL (?...), where receivers take API keys, would"
                    + " show in the agent's options; give keys to a collector on this host; expected " + ALLOWED);
        }
        if (uri.getPort() == 0 || uri.getPort() > MAX_PORT) {
            throw new IllegalArgumentException(
                    bad + ": port " + uri.getPort() + " is not one from 1 to " + MAX_PORT + "; expected " + ALLOWED);
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException(bad + ": a URL to send to has no fragment (#...); expected " + ALLOWED);
        }
        String path = uri.getRawPath() == null
                        || uri.getRawPath().isEmpty()
                        || uri.getRawPath().equals("/")
                ? METRICS_PATH
                : uri.getRawPath();
        try {
            return new OtlpEndpoint(new URI(scheme + "://" + uri.getRawAuthority() + path));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(bad + ": not a URL (" + e.getReason() + "); expected " + ALLOWED);
        }
    }

    public URI uri() {
        return uri;
    }

    /** The receiver's port: the URL's, or HTTP's. */
    public int port() {
        return uri.getPort() >= 0 ? uri.getPort() : 80;
    }

    @Override
    public String toString() {
        return uri.toString();
    }
}
