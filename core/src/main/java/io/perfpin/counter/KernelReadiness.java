package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.event.GenericEvents;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.Syscalls;

/**
 * Two things the kernel does once, the first time, on the way to counting many threads, done ahead on a thread that
 * has nothing else to do, so that the thread that opens the counters does not wait for them. Each is a wait for an
 * RCU grace period: milliseconds to tens of milliseconds (15 ms here), with no CPU used.
 *
 * <ul>
 *   <li>The first per-task perf event in the whole system switches on the scheduler's perf hooks
 *       ({@code perf_sched_events}) and waits until every CPU sees them. They stay on while any such event is open,
 *       and for a second after the last one closes.
 *   <li>Each time a multithreaded process's descriptor table doubles (to 128, 256, 512, ... entries), the kernel waits
 *       for every thread that may be installing a descriptor in the old table to be done with it. A table never
 *       shrinks.
 * </ul>
 *
 * Neither changes what is counted. What fails here is left to the counting, which meets it again and says it.
 */
public final class KernelReadiness {
    private static final EventSpec TASK_CLOCK =
            GenericEvents.lookup("task-clock").orElseThrow();

    private KernelReadiness() {}

    /**
     * Switches the scheduler's perf hooks on, and grows this process's descriptor table to hold {@code descriptors}
     * more than it holds now, as far as its open-file limit allows: one counter opened, disabled, on the calling
     * thread, a duplicate of it at the number that many above its own, and both closed at once.
     */
    public static void prepare(Syscalls syscalls, int descriptors) {
        // a leader's attribute is disabled: it counts nothing, and its encoding is the one the counters will use
        int fd = syscalls.perfEventOpen(
                EncodedAttrs.leader(syscalls, TASK_CLOCK), 0, -1, -1, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            return;
        }
        try {
            if (descriptors > 0) {
                DescriptorTable.makeRoom(new FileCalls(syscalls), fd, descriptors);
            }
        } finally {
            syscalls.close(fd);
        }
    }
}
