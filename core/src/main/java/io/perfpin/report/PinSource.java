package io.perfpin.report;

import java.util.Locale;

/** Who set a thread's CPUs, as records show it ({@code "pin"}): so a report knows a pinned thread for one. */
public enum PinSource {
    /** perfpin did not pin it: its affinity is its own, or the process's. */
    NONE,
    /** A pin rule, an annotation or {@code --pin} placed it. */
    PERFPIN,
    /** It kept a pin inherited from the pinned thread that started it, as an {@code inherit} rule allows. */
    INHERITED;

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for a text that is none of them */
    public static PinSource of(String text) {
        for (PinSource source : values()) {
            if (source.text().equals(text)) {
                return source;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not none, perfpin or inherited");
    }
}
