package io.perfpin.agent.impl;

import io.perfpin.cpu.Placement;
import io.perfpin.options.PinRule;
import io.perfpin.options.ThreadPatterns;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Which threads the agent counts and pins, by name or by class (the {@code Thread} subclass, such as a
 * framework's own thread type), and which keep a pin they inherited. With neither a name nor a class rule,
 * the application's threads are counted: all but the JVM's service threads.
 */
final class ThreadRules {
    /** perfpin's own threads (the sampler, the shutdown hook), never pinned or counted. */
    private static final String OWN_PREFIX = "perfpin-";

    private final Pattern threads;
    private final Pattern classes;
    private final List<PinRule> pins;
    private final Pattern inherit;

    ThreadRules(Pattern threads, Pattern classes, List<PinRule> pins, Pattern inherit) {
        this.threads = threads;
        this.classes = classes;
        this.pins = List.copyOf(pins);
        this.inherit = inherit;
    }

    /** Whether a thread of this name and class is counted, pinned or not. */
    boolean enrols(String name, Class<?> type) {
        if (name.startsWith(OWN_PREFIX)) {
            return false;
        }
        return placementFor(name) != null || counts(name, type);
    }

    private boolean counts(String name, Class<?> type) {
        if (threads == null && classes == null) {
            return !ThreadPatterns.SERVICE_THREADS.matcher(name).matches();
        }
        return threads != null && threads.matcher(name).matches()
                || classes != null && classes.matcher(type.getName()).matches();
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
