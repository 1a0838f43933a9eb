package io.perfpin.bench;

import java.util.function.DoubleFunction;

/**
 * Whether a figure reached the target the project set for it, and when it did not, by how much and whether
 * that is more than the spread of the runs: a miss smaller than the spread cannot be told from this
 * machine's noise, and the verdict says so instead of hiding either.
 */
public record Verdict(String text) {

    public static Verdict noTarget() {
        return new Verdict("(no target)");
    }

    public static Verdict notMeasured(String why) {
        return new Verdict("not measured: " + why);
    }

    /**
     * @param noise  how far the runs themselves spread, in the value's units
     * @param format writes a value or a difference in its units
     * @param cause  what the measurements show about why, appended to a miss; empty for nothing
     */
    public static Verdict atMost(double value, double limit, double noise, DoubleFunction<String> format,
                                 String cause) {
        return value <= limit ? met() : missed(value - limit, noise, format, cause);
    }

    /** As {@link #atMost}, for a figure that must reach at least {@code limit}. */
    public static Verdict atLeast(double value, double limit, double noise, DoubleFunction<String> format,
                                  String cause) {
        return value >= limit ? met() : missed(limit - value, noise, format, cause);
    }

    private static Verdict met() {
        return new Verdict("met");
    }

    private static Verdict missed(double shortfall, double noise, DoubleFunction<String> format, String cause) {
        String versus = shortfall <= noise
                ? ", less than the runs' own spread (" + format.apply(noise) + "): not told apart from noise here"
                : ", more than the runs' own spread (" + format.apply(noise) + ")";
        return new Verdict("missed by " + format.apply(shortfall) + versus + (cause.isEmpty() ? "" : "; " + cause));
    }

    public boolean isMet() {
        return text.equals("met");
    }
}
