package io.perfpin.registry;

import io.perfpin.stats.AgentNotice;

/**
 * One piece of the registry's work among many of its kind: one thread's reading, recording or closing, one tick
 * listener, one resource given back at close. Whatever a piece throws, Errors too, is caught where it runs and said
 * once with {@link #failed}, and the caller goes on with the next piece: a failure of one never skips another. A thread
 * of the host JVM out of memory, or a fault of the stats file's mapping surfacing late ({@link
 * io.perfpin.stats.MappedFaults}), is no reason to leave the other threads counted and pinned.
 *
 * <p>Each piece has a try of its own rather than a lambda handed to one runner: the pieces run on the sampler and on a
 * short main's exit path, where linking each lambda costs about a millisecond of CPU once per JVM.
 */
final class Isolated {
    private Isolated() {}

    /**
     * The notice for {@code what} that failed: said once, however many threads meet it, and kept with its stack
     * trace where the agent keeps a log.
     */
    static AgentNotice failed(String what, Throwable failure) {
        return AgentNotice.failure(what + " failed", failure);
    }
}
