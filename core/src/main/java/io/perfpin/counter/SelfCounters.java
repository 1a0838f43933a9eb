package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeBuffer;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.Syscalls;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Counters that the calling thread reads about itself, as a method measurement needs: each event opened
 * alone with its mmap page, read with rdpmc under the page's seqlock where the kernel allows user-space
 * counter reads, with read(2) otherwise (software events, {@code cap_user_rdpmc} off, or a backend without
 * perfpin's C code).
 *
 * <p>Only the thread that opened them may read them: rdpmc reads the counters of the CPU it runs on, which
 * hold this thread's events only while this thread runs.
 */
public final class SelfCounters implements AutoCloseable {
    private static final long READ_FORMAT =
            PerfEventAttr.FORMAT_TOTAL_TIME_ENABLED | PerfEventAttr.FORMAT_TOTAL_TIME_RUNNING;
    private static final int VALUE_OFFSET = 0;
    private static final int ENABLED_OFFSET = 8;
    private static final int RUNNING_OFFSET = 16;

    private final Syscalls syscalls;
    private final Thread owner;
    private final List<EventSpec> events;
    private final List<EventFailure> unsupported;
    private final int[] fds;
    private final long[] pages;
    private final DescriptorBudget budget;
    private final NativeBuffer out;
    private int lastRdpmcReads;

    private SelfCounters(
            Syscalls syscalls,
            List<EventSpec> events,
            List<EventFailure> unsupported,
            int[] fds,
            long[] pages,
            DescriptorBudget budget) {
        this.syscalls = syscalls;
        this.owner = Thread.currentThread();
        this.events = events;
        this.unsupported = Collections.unmodifiableList(unsupported);
        this.fds = fds;
        this.pages = pages;
        this.budget = budget;
        this.out = NativeBuffer.allocate(syscalls, 3 * Long.BYTES);
    }

    /** Opens and starts the events for the calling thread; refused ones are in {@link #unsupported()}. */
    public static SelfCounters open(Syscalls syscalls, List<EventSpec> events) {
        return open(syscalls, events, DescriptorBudget.unbounded());
    }

    /**
     * As {@link #open(Syscalls, List)}, with descriptors out of {@code budget}: when it has too few left for
     * them, or the kernel says the process or the system is out of descriptors, none is held and every event
     * is not counted.
     */
    public static SelfCounters open(Syscalls syscalls, List<EventSpec> events, DescriptorBudget budget) {
        List<EventSpec> requested = List.copyOf(events);
        List<EventFailure> unsupported = new ArrayList<>();
        int[] fds = new int[requested.size()];
        long[] pages = new long[requested.size()];
        Arrays.fill(fds, -1);
        if (!budget.take(requested.size())) {
            return new SelfCounters(
                    syscalls,
                    requested,
                    DescriptorBudget.shortage(requested, List.of(), Errno.EMFILE, budget.reason()),
                    fds,
                    pages,
                    budget);
        }
        int opened = 0;
        boolean unusedGivenBack = false;
        try {
            NativeBuffer attrBuffer = NativeBuffer.allocate(syscalls, PerfEventAttr.SIZE);
            int tid = syscalls.gettid();
            for (int i = 0; i < requested.size(); i++) {
                EventSpec event = requested.get(i);
                event.toAttr().readFormat(READ_FORMAT).writeTo(attrBuffer.buffer());
                int fd = syscalls.perfEventOpen(attrBuffer.address(), 0, -1, -1, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
                if (DescriptorBudget.isShortage(-fd)) {
                    List<EventFailure> none = DescriptorBudget.shortage(
                            requested, unsupported, -fd, PerfOpenErrors.explain(event, tid, -fd));
                    closeAll(syscalls, fds, pages); // none is held: each descriptor goes back
                    budget.giveBack(requested.size());
                    unusedGivenBack = true;
                    return new SelfCounters(syscalls, requested, none, fds, pages, budget);
                }
                if (fd < 0) {
                    unsupported.add(PerfOpenErrors.failure(event, i, tid, -fd));
                    continue;
                }
                fds[i] = fd;
                opened++;
                long page = syscalls.mmapPerfPage(fd);
                pages[i] = Math.max(page, 0); // without a page, self-reads use read(2)
            }
            budget.giveBack(requested.size() - opened);
            unusedGivenBack = true;
            return new SelfCounters(syscalls, requested, unsupported, fds, pages, budget);
        } catch (RuntimeException | Error e) {
            // an attribute that cannot be encoded, or no memory for a buffer (a JVM near its direct-memory limit):
            // what was opened is closed, every descriptor given back, rather than held by no one until the exit
            int closed = closeAll(syscalls, fds, pages);
            budget.giveBack(unusedGivenBack ? closed : requested.size());
            throw e;
        }
    }

    public List<EventSpec> events() {
        return events;
    }

    public List<EventFailure> unsupported() {
        return unsupported;
    }

    public CounterSnapshot newSnapshot() {
        return CounterGroup.snapshotFor(events, unsupported);
    }

    /**
     * Reads every opened event into {@code into}; returns 0 or the first -errno.
     *
     * @throws IllegalStateException on any thread but the one that opened these counters
     */
    public int read(CounterSnapshot into) {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("self counters of " + owner.getName() + " read from "
                    + Thread.currentThread().getName());
        }
        int rdpmc = 0;
        for (int i = 0; i < fds.length; i++) {
            if (fds[i] < 0) {
                continue;
            }
            int rc = syscalls.selfRead(pages[i], fds[i], out.address());
            if (rc < 0) {
                return rc;
            }
            rdpmc += rc;
            into.set(i, out.getLong(VALUE_OFFSET), out.getLong(ENABLED_OFFSET), out.getLong(RUNNING_OFFSET));
        }
        lastRdpmcReads = rdpmc;
        return 0;
    }

    /** How many events the last {@link #read} took through rdpmc rather than read(2). */
    public int lastRdpmcReads() {
        return lastRdpmcReads;
    }

    /** Closes every descriptor, given back to the budget. */
    @Override
    public void close() {
        budget.giveBack(closeAll(syscalls, fds, pages));
    }

    /** Unmaps and closes what is open, each marked so; how many descriptors were closed. */
    private static int closeAll(Syscalls syscalls, int[] fds, long[] pages) {
        int closed = 0;
        for (int i = 0; i < fds.length; i++) {
            if (pages[i] > 0) {
                syscalls.munmapPerfPage(pages[i]);
                pages[i] = 0;
            }
            if (fds[i] >= 0) {
                syscalls.close(fds[i]);
                fds[i] = -1;
                closed++;
            }
        }
        return closed;
    }
}
