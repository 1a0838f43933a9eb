package io.perfpin.jmh;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.EventFailure;
import java.util.List;

/**
 * One counted thread's counts over one iteration.
 *
 * @param tid         its Linux TID, which tells apart threads of one name
 * @param counts      indexed like the profiler's events
 * @param unsupported the events the kernel refused for this thread, and /proc could not count either
 * @param notCounted  why the thread holds no counter at all (out of file descriptors); null when it counts
 */
record ThreadCount(String name, int tid, CounterSnapshot counts, List<EventFailure> unsupported, String notCounted) {
    /** Whether event {@code index} was counted for this thread over the iteration. */
    boolean counted(int index) {
        return notCounted == null
                && counts.isCounted(index)
                && unsupported.stream().noneMatch(failure -> failure.index() == index);
    }
}
