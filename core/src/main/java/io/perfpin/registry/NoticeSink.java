package io.perfpin.registry;

import io.perfpin.stats.AgentNotice;

/** Where a registry's notices go besides its stats file: the agent's voice, or a test's list. */
@FunctionalInterface
public interface NoticeSink {
    /** A notice as it is said, once per kind and subject ({@link io.perfpin.stats.SaidOnce}). */
    void said(AgentNotice notice);

    /**
     * A failure like one said before, with its own cause: not for the user's terminal again, but for a log that
     * keeps every failure's stack trace.
     */
    default void again(AgentNotice notice) {}

    /**
     * A notice that no viewer will read in the stats file: the file holds as many as it can, or is no longer
     * published. The last chance to show it, where it was kept back for the file.
     */
    default void unpublished(AgentNotice notice) {}
}
