package io.perfpin.export;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.event.EventSpec;
import io.perfpin.event.GenericEvents;
import io.perfpin.nativeio.Syscalls;
import java.util.List;

/**
 * The CPU time of the thread that opened it, by the kernel's task-clock (or /proc where the kernel does not permit
 * it), so that the exports show what perfpin's sampler costs: it is opened on the sampler's tick, and read there
 * with the threads it samples.
 */
public final class OwnTaskClock implements AutoCloseable {
    private static final EventSpec TASK_CLOCK_EVENT =
            GenericEvents.lookup("task-clock").orElseThrow();
    private static final ExportedEvent TASK_CLOCK = ExportedEvent.of(TASK_CLOCK_EVENT);

    private final ThreadCounters counters;
    private final CounterSnapshot counts;

    private OwnTaskClock(ThreadCounters counters) {
        this.counters = counters;
        this.counts = counters.newSnapshot();
    }

    /** Counts the calling thread from now on, with one descriptor out of {@code budget}. */
    public static OwnTaskClock ofCurrentThread(Syscalls syscalls, DescriptorBudget budget) {
        return new OwnTaskClock(ThreadCounters.open(
                syscalls,
                ProcessHandle.current().pid(),
                syscalls.gettid(),
                List.of(TASK_CLOCK_EVENT),
                new RefusedEvents(),
                budget));
    }

    /** Seconds on a CPU since it was opened; NaN when it could not be counted. */
    public double seconds() {
        if (counters.read(counts) < 0 || !counts.isCounted(0)) {
            return Double.NaN;
        }
        return TASK_CLOCK.exported(counts.value(0));
    }

    @Override
    public void close() {
        counters.close();
    }
}
