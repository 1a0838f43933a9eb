package io.perfpin.jmh;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.event.EventList;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.DescriptorShare;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The counters of the threads the profiler counts in this JVM, each opened once, when the thread is first
 * selected, and read as each measurement iteration starts and ends: an iteration's counts are the difference. A
 * thread that starts during an iteration is counted from the next one. What opening them could not count is said
 * here, in the JVM that counts: only it knows (a fork may run another JDK, or get a simulated PMU or another
 * backend through -jvmArgsAppend), and a fork's output is JMH's.
 */
final class CountedThreads implements AutoCloseable {
    private final Syscalls syscalls;
    private final EventList events;
    private final long pid = ProcessHandle.current().pid();
    private final RefusedEvents refused = new RefusedEvents();
    private final DescriptorBudget descriptors;
    private final Map<Integer, Counted> threads = new LinkedHashMap<>();

    /** One thread's counters, with its counts when the iteration started and now. */
    private static final class Counted {
        final String name;
        final int tid;
        final ThreadCounters counters;
        final CounterSnapshot start;
        final CounterSnapshot now;
        final CounterSnapshot iteration;
        boolean counting;

        Counted(String name, int tid, ThreadCounters counters) {
            this.name = name;
            this.tid = tid;
            this.counters = counters;
            this.start = counters.newSnapshot();
            this.now = counters.newSnapshot();
            this.iteration = counters.newSnapshot();
        }
    }

    CountedThreads(Syscalls syscalls, EventList events) throws IOException {
        this.syscalls = syscalls;
        this.events = events;
        this.descriptors = DescriptorBudget.forThisProcess(DescriptorShare.DEFAULT);
    }

    /** Opens counters for each of {@code selected} (TID to name) not counted yet. */
    void open(Map<Integer, String> selected) {
        selected.forEach((tid, name) -> {
            if (!threads.containsKey(tid)) {
                ThreadCounters counters =
                        ThreadCounters.open(syscalls, pid, tid, events.events(), refused, descriptors);
                Notes.sayWhatIsCounted(events, counters);
                threads.put(tid, new Counted(name, tid, counters));
            }
        });
    }

    /** An iteration starts: every thread counted now is read, and only these count in it. */
    void start() {
        for (Counted thread : threads.values()) {
            thread.counters.read(thread.start);
            thread.counting = true;
        }
    }

    /** The iteration ends: each thread's counts over it. */
    List<ThreadCount> stop() {
        List<ThreadCount> counts = new ArrayList<>();
        for (Counted thread : threads.values()) {
            if (thread.counting) {
                thread.counters.read(thread.now);
                CounterSnapshot.delta(thread.now, thread.start, thread.iteration);
                counts.add(new ThreadCount(
                        thread.name,
                        thread.tid,
                        thread.iteration,
                        thread.counters.unsupported(),
                        thread.counters.notCounted()));
                thread.counting = false;
            }
        }
        return counts;
    }

    @Override
    public void close() {
        threads.values().forEach(t -> t.counters.close());
        threads.clear();
    }
}
