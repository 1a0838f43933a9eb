package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.Syscalls;
import java.util.ArrayList;
import java.util.List;

/**
 * One disabled event of each software kind that threads will count, held open for as long as they are
 * counted. The kernel switches a software event's code path on when the first event of its kind is created
 * and off when the last one closes, and that switch (a static key: code patched on every CPU) was most of
 * what opening and closing a short-lived thread's counters cost: about 240 µs against 20 µs for the six
 * {@code sched} events on this project's machines. Held disabled, these count nothing and cost nothing.
 */
public final class KeptSwitchedOn implements AutoCloseable {
    private final Syscalls syscalls;
    private final List<Integer> fds;
    private final DescriptorBudget budget;

    private KeptSwitchedOn(Syscalls syscalls, List<Integer> fds, DescriptorBudget budget) {
        this.syscalls = syscalls;
        this.fds = fds;
        this.budget = budget;
    }

    /**
     * Opens the software events among {@code events} on the calling thread, disabled; others are skipped, and
     * so are those {@code budget} has no descriptor for: they only make enrolment cheaper.
     */
    public static KeptSwitchedOn open(Syscalls syscalls, List<EventSpec> events, DescriptorBudget budget) {
        List<Integer> fds = new ArrayList<>();
        for (EventSpec event : events) {
            if (event.isSoftware() && budget.take(1)) {
                // a leader's attribute is disabled: it counts nothing, and its encoding is the one threads will use
                int fd = syscalls.perfEventOpen(
                        EncodedAttrs.leader(syscalls, event), 0, -1, -1, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
                if (fd >= 0) {
                    fds.add(fd);
                } else {
                    budget.giveBack(1);
                }
            }
        }
        return new KeptSwitchedOn(syscalls, fds, budget);
    }

    /** How many events are held. */
    public int size() {
        return fds.size();
    }

    @Override
    public void close() {
        for (int fd : fds) {
            syscalls.close(fd);
        }
        budget.giveBack(fds.size());
        fds.clear();
    }
}
