package io.perfpin.options;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as perfpin's options spell them, agent and CLI alike: {@code 100us}, {@code 500ms}, {@code 5s}. */
public final class Durations {
    public static final String ALLOWED = "a positive whole number with a unit: ns, us, ms, s or m (e.g. 500ms, 5s)";
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ns|us|ms|s|m)");

    private Durations() {
    }

    /** @throws IllegalArgumentException naming the token and what is allowed */
    public static Duration parse(String token) {
        Matcher m = DURATION.matcher(token.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("bad duration '" + token + "': expected " + ALLOWED);
        }
        long amount = Long.parseLong(m.group(1));
        Duration duration;
        switch (m.group(2)) {
            case "ns":
                duration = Duration.ofNanos(amount);
                break;
            case "us":
                duration = Duration.ofNanos(Math.multiplyExact(amount, 1_000L));
                break;
            case "ms":
                duration = Duration.ofMillis(amount);
                break;
            case "s":
                duration = Duration.ofSeconds(amount);
                break;
            default:
                duration = Duration.ofMinutes(amount);
        }
        if (duration.isZero()) {
            throw new IllegalArgumentException("bad duration '" + token + "': expected " + ALLOWED);
        }
        return duration;
    }
}
