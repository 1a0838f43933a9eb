package io.perfpin.registry;

import io.perfpin.stats.AgentNotice;
import java.io.IOException;

/**
 * One piece of the registry's work among many of its kind: one thread's reading, recording or closing, one tick
 * listener, one resource given back at close. Whatever it throws is handed back rather than thrown, so that the
 * caller says it once and goes on with the next piece: a failure of one never skips another.
 */
final class Isolated {
    /** Work that may fail. */
    @FunctionalInterface
    interface Work {
        void run() throws IOException;
    }

    private Isolated() {}

    /**
     * Runs {@code work}.
     *
     * @return what it threw, null when it returned. Errors too: a thread of the host JVM out of memory, or a fault
     *         of the stats file's mapping surfacing here ({@link io.perfpin.stats.MappedFaults}), is no reason to leave
     *         the other threads counted and pinned
     */
    static Throwable run(Work work) {
        try {
            work.run();
            return null;
        } catch (IOException | RuntimeException | Error e) {
            return e;
        }
    }

    /** Runs {@code work}; what it throws is said once, as {@code what} that failed. */
    static void run(Notices notices, String what, Work work) {
        Throwable failure = run(work);
        if (failure != null) {
            notices.sayOnce(failed(what, failure));
        }
    }

    /**
     * The notice for {@code what} that failed: said once, however many threads meet it, and kept with its stack
     * trace where the agent keeps a log.
     */
    static AgentNotice failed(String what, Throwable failure) {
        return AgentNotice.failure(what + " failed", failure);
    }
}
