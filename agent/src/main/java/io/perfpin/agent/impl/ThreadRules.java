package io.perfpin.agent.impl;

import io.perfpin.cpu.Placement;
import io.perfpin.options.PinRule;
import io.perfpin.options.ThreadPattern;
import io.perfpin.options.ThreadPatterns;
import java.util.List;

/**
 * Which threads the agent counts and pins, by name or by class (the {@code Thread} subclass, such as a
 * framework's own thread type), and which keep a pin they inherited. With neither a name nor a class rule,
 * the application's threads are counted: all but the JVM's service threads.
 */
final class ThreadRules {
    /** perfpin's own threads (the sampler, the shutdown hook), never pinned or counted. */
    private static final String OWN_PREFIX = "perfpin-";

    private final ThreadPattern threads;
    private final ThreadPattern classes;
    private final List<PinRule> pins;
    private final ThreadPattern inherit;
    private final boolean blindToDigitSuffix;

    ThreadRules(ThreadPattern threads, ThreadPattern classes, List<PinRule> pins, ThreadPattern inherit) {
        this.threads = threads;
        this.classes = classes;
        this.pins = List.copyOf(pins);
        this.inherit = inherit;
        this.blindToDigitSuffix = classes == null
                && (threads == null || threads.blindToDigitSuffix())
                && pinsBlindToDigitSuffix(this.pins);
    }

    /** A loop, not a stream: premain makes the rules, where a stream pipeline's classes loaded before main(). */
    private static boolean pinsBlindToDigitSuffix(List<PinRule> pins) {
        for (PinRule rule : pins) {
            if (!rule.blindToDigitSuffix()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@link #enrols} and {@link #placementFor} answer alike for every name that differs from another only
     * in the digits it ends with ({@link ThreadPattern#blindToDigitSuffix()}), whatever the thread's class. Without
     * rules they do: the JVM's service threads are told by name, and its compiler threads by their name's prefix
     * and that digits follow it. Which pin a thread inherits is not asked: a thread that starts pinned is always
     * asked of the rules.
     */
    boolean blindToDigitSuffix() {
        return blindToDigitSuffix;
    }

    /** Whether a rule pins threads by name; annotations may pin others. */
    boolean pinsByName() {
        return !pins.isEmpty();
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
            return !ThreadPatterns.isServiceThread(name);
        }
        return threads != null && threads.matches(name) || classes != null && classes.matches(type.getName());
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
        return inherit != null && inherit.matches(name);
    }
}
