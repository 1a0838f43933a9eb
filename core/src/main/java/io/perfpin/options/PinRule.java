package io.perfpin.options;

import io.perfpin.cpu.Placement;

/**
 * A pin rule as agent and CLI spell it, {@code REGEX@PLACEMENT}: threads whose whole name matches
 * {@code REGEX} run on {@code PLACEMENT} (a CPU list, {@code isolated}, {@code core} or {@code any}). The
 * text splits at its last {@code @}, so a regex may contain {@code @} and a placement never does.
 */
public final class PinRule {
    public static final String ALLOWED = "REGEX@PLACEMENT, PLACEMENT being a CPU list like 2-3, isolated, core or any";

    private final ThreadPattern threads;
    private final Placement placement;

    private PinRule(ThreadPattern threads, Placement placement) {
        this.threads = threads;
        this.placement = placement;
    }

    /** @throws IllegalArgumentException one line naming the bad token and what is allowed */
    public static PinRule parse(String text) {
        OptionLimits.checkLength("pin rule", text, text);
        int at = text.lastIndexOf('@');
        if (at <= 0 || at == text.length() - 1) {
            throw new IllegalArgumentException("bad pin rule '" + text + "': expected " + ALLOWED);
        }
        Placement placement;
        try {
            placement = Placement.parse(text.substring(at + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad pin rule '" + text + "': " + e.getMessage(), e);
        }
        return new PinRule(ThreadPatterns.compile("pin rule", text, text.substring(0, at)), placement);
    }

    public boolean matches(String threadName) {
        return threads.matches(threadName);
    }

    /** As {@link ThreadPattern#blindToDigitSuffix()} of its regex. */
    public boolean blindToDigitSuffix() {
        return threads.blindToDigitSuffix();
    }

    public Placement placement() {
        return placement;
    }

    /** The text {@link #parse} reads back. */
    @Override
    public String toString() {
        return threads + "@" + placement;
    }
}
