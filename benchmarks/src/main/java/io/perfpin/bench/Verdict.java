package io.perfpin.bench;

import java.util.function.DoubleFunction;

/**
 * Whether a figure reached the target the project set for it, and when its median did not, by how much and
 * whether the spread of the runs still reaches the target: if even the most favourable end of the spread
 * misses, noise cannot be the reason; if it reaches, this machine cannot tell, and the verdict says so.
 */
public record Verdict(String text) {

    public static Verdict noTarget() {
        return new Verdict("(no target)");
    }

    public static Verdict notMeasured(String why) {
        return new Verdict("not measured: " + why);
    }

    /**
     * @param format writes a value or a difference in its units
     * @param cause  what the measurements show about why, appended to a miss; empty for nothing
     */
    public static Verdict atMost(Summary value, double limit, DoubleFunction<String> format, String cause) {
        return value.median() <= limit
                ? met()
                : missed(value.median() - limit, value.min() <= limit, format.apply(value.min()), format, cause);
    }

    /**
     * perfpin's addition over the peer's at most {@code limit} times: not measured where the peer did not run or
     * added nothing measurable.
     */
    public static Verdict ratioAtMost(Cost cost, double limit, AsyncProfiler peer, String cause) {
        Summary ratio = cost.ratio();
        return cost.peerAdds() == null
                ? notMeasured(peer.missing())
                : ratio == null
                        ? notMeasured(peer.name() + " adds nothing measurable here")
                        : atMost(ratio, limit, v -> Summary.number(v, 2) + "x", cause);
    }

    /** As {@link #atMost}, for a figure that must reach at least {@code limit}. */
    public static Verdict atLeast(Summary value, double limit, DoubleFunction<String> format, String cause) {
        return value.median() >= limit
                ? met()
                : missed(limit - value.median(), value.max() >= limit, format.apply(value.max()), format, cause);
    }

    private static Verdict met() {
        return new Verdict("met");
    }

    private static Verdict missed(
            double shortfall,
            boolean spreadReaches,
            String favourableEnd,
            DoubleFunction<String> format,
            String cause) {
        String noise = spreadReaches
                ? ", but the spread reaches the target (at best " + favourableEnd + "): not told apart from noise here"
                : "; even the most favourable end of the spread (" + favourableEnd + ") misses it";
        return new Verdict("missed by " + format.apply(shortfall) + noise + (cause.isEmpty() ? "" : "; " + cause));
    }

    public boolean isMet() {
        return text.equals("met");
    }
}
