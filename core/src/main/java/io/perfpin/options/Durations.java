package io.perfpin.options;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as perfpin's options spell them, agent and CLI alike: {@code 100us}, {@code 500ms}, {@code 5s}. */
public final class Durations {
    public static final String ALLOWED = "a positive whole number with a unit: ns, us, ms, s or m (e.g. 500ms, 5s)";
    /**
     * The longest duration: a year, far past any interval or watch, and far from where nanoseconds in a long
     * (292 years) or a deadline on {@link System#nanoTime()} would overflow.
     */
    public static final Duration MAX = Duration.ofDays(365);

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ns|us|ms|s|m)");
    private static final Map<String, ChronoUnit> UNITS = Map.of(
            "ns",
            ChronoUnit.NANOS,
            "us",
            ChronoUnit.MICROS,
            "ms",
            ChronoUnit.MILLIS,
            "s",
            ChronoUnit.SECONDS,
            "m",
            ChronoUnit.MINUTES);
    /** More digits than {@link #MAX} has in nanoseconds: too large in any unit, and never parsed. */
    private static final int MAX_DIGITS = 17;

    private Durations() {}

    /** @throws IllegalArgumentException naming the token and what is allowed, or the largest duration */
    public static Duration parse(String token) {
        Matcher m = DURATION.matcher(token.strip());
        if (!m.matches()) {
            throw bad(token, "expected " + ALLOWED);
        }
        ChronoUnit unit = UNITS.get(m.group(2));
        String digits = m.group(1);
        if (digits.length() > MAX_DIGITS || Long.parseLong(digits) > MAX.dividedBy(unit.getDuration())) {
            throw bad(token, "too large (at most " + MAX.toMinutes() + "m, a year)");
        }
        Duration duration = Duration.of(Long.parseLong(digits), unit);
        if (duration.isZero()) {
            throw bad(token, "expected " + ALLOWED);
        }
        return duration;
    }

    /** {@code duration} as {@link #parse} reads it, in the largest unit holding it whole: {@code 1ns}, {@code 5s}. */
    public static String text(Duration duration) {
        long nanos = duration.toNanos();
        for (String unit : List.of("m", "s", "ms", "us")) {
            long size = UNITS.get(unit).getDuration().toNanos();
            if (nanos % size == 0) {
                return nanos / size + unit;
            }
        }
        return nanos + "ns";
    }

    private static IllegalArgumentException bad(String token, String why) {
        return new IllegalArgumentException("bad duration '" + OptionLimits.shown(token) + "': " + why);
    }
}
