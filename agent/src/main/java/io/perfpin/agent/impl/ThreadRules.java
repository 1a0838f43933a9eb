package io.perfpin.agent.impl;

import io.perfpin.cpu.Placement;
import io.perfpin.options.PinRule;
import io.perfpin.options.ThreadPatterns;

import java.util.List;
import java.util.regex.Pattern;

/** Which threads the agent counts and pins, by name, and which keep a pin they inherited. */
final class ThreadRules {
    /** perfpin's own threads (the sampler, the shutdown hook), never pinned or counted. */
    private static final String OWN_PREFIX = "perfpin-";

    private final Pattern threads;
    private final List<PinRule> pins;
    private final Pattern inherit;

    ThreadRules(Pattern threads, List<PinRule> pins, Pattern inherit) {
        this.threads = threads;
        this.pins = List.copyOf(pins);
        this.inherit = inherit;
    }

    /** Whether a thread of this name is counted, pinned or not. */
    boolean enrols(String name) {
        if (name.startsWith(OWN_PREFIX)) {
            return false;
        }
        return placementFor(name) != null || counts(name);
    }

    private boolean counts(String name) {
        return threads == null ? !ThreadPatterns.SERVICE_THREADS.matcher(name).matches() : threads.matcher(name).matches();
    }

    /** The placement of the first pin rule the name matches; null when none does. */
    Placement placementFor(String name) {
        for (PinRule rule : pins) {
            if (rule.matches(name)) {
                return rule.placement();
            }
        }
        return null;
    }

    boolean inheritsPin(String name) {
        return inherit != null && inherit.matcher(name).matches();
    }
}
