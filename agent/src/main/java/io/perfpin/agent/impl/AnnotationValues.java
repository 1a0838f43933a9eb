package io.perfpin.agent.impl;

import io.perfpin.cpu.Placement;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.registry.ThreadRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The values of {@code @Pinned} and {@code @Counted}, parsed once each. A value that does not parse is
 * reported once, naming the annotation, and the agent's default applies in its place.
 */
final class AnnotationValues {
    private final Map<String, Object> placements = new ConcurrentHashMap<>();
    private final Map<String, Object> eventLists = new ConcurrentHashMap<>();
    private final EventParser parser;
    /** Set once a {@code @Pinned} task's class is woven. */
    private volatile boolean pinsWoven;
    /** Told of pins ahead; null until the registry starts. */
    private volatile ThreadRegistry registry;

    AnnotationValues(EventParser parser) {
        this.parser = parser;
    }

    /**
     * The registry to tell once a {@code @Pinned} task's class is woven, so that it reads the CPU topology, where
     * there is time, before the first such task pins its thread; told at once where one was woven before it started.
     */
    void pinsGoTo(ThreadRegistry started) {
        registry = started;
        if (pinsWoven) {
            started.pinsAhead();
        }
    }

    /** A {@code @Pinned} task's class was woven: its threads will be pinned. */
    void pinnedTaskWoven() {
        if (pinsWoven) {
            return; // told already, or told at pinsGoTo
        }
        pinsWoven = true;
        ThreadRegistry told = registry;
        if (told != null) {
            told.pinsAhead();
        }
    }

    /** Null for an empty or bad value: not pinned. */
    Placement placement(String text) {
        return text.isEmpty() ? null : parsed(placements, text, "@Pinned", Placement::parse);
    }

    /** Null for an empty or bad value: the agent's events. */
    EventList events(String text) {
        return text.isEmpty() ? null : parsed(eventLists, text, "@Counted", t -> EventList.parse(t, parser));
    }

    @SuppressWarnings("unchecked")
    private static <T> T parsed(Map<String, Object> cache, String text, String annotation, Function<String, T> parse) {
        Object value = cache.computeIfAbsent(text, t -> {
            try {
                return parse.apply(t);
            } catch (RuntimeException e) {
                return new IllegalArgumentException(
                        annotation + "(\"" + t + "\"): " + e.getMessage() + "; the agent's default is used instead", e);
            }
        });
        if (value instanceof IllegalArgumentException) {
            AgentLog.refused(((IllegalArgumentException) value).getMessage());
            return null;
        }
        return (T) value;
    }
}
