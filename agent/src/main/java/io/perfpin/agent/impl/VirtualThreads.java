package io.perfpin.agent.impl;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.VirtualThreadCounters;
import io.perfpin.event.EventList;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeBuffer;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.VirtualThreadCounting;
import io.perfpin.options.ThreadPattern;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The {@code virtual=REGEX} option: each virtual thread whose name matches is counted over the time it is mounted
 * ({@link VirtualThreadCounting}), and its final record is written at its end. The C library calls the two static
 * hooks here; a virtual thread's end only queues its totals, which the sampler's next tick turns into its record,
 * as it writes every other (the recording is written by the sampler only).
 */
final class VirtualThreads implements ThreadRegistry.TickListener {
    /** The one running; null before start and after close: the hooks then select nothing and drop what ends. */
    private static volatile VirtualThreads running;

    private final Syscalls syscalls;
    private final ThreadPattern names;
    private final EventList events;
    private final Queue<Ended> ended = new ConcurrentLinkedQueue<>();
    private final DescriptorBudget budget;
    /** The descriptors taken from the budget for the carriers' groups, given back at close. */
    private final int reserved;

    private static final class Ended {
        final String name;
        final long javaId;
        final long[] totals;
        final int mounts;
        final int[] carriers;

        Ended(String name, long javaId, long[] totals, int mounts, int[] carriers) {
            this.name = name;
            this.javaId = javaId;
            this.totals = totals;
            this.mounts = mounts;
            this.carriers = carriers;
        }
    }

    private VirtualThreads(Syscalls syscalls, ThreadPattern names, EventList events, DescriptorBudget budget,
                           int reserved) {
        this.syscalls = syscalls;
        this.names = names;
        this.events = events;
        this.budget = budget;
        this.reserved = reserved;
    }

    /**
     * The carriers that may hold a group: twice the default scheduler's parallelism (the CPUs), and at least 8, for
     * the carriers it adds while virtual threads block pinned; as many as the budget has room for, if fewer.
     */
    static int carrierGroups(DescriptorBudget budget, int events) {
        long room = Math.max(0, (budget.budget() - budget.held()) / events);
        return (int) Math.min(room, Math.max(8, 2 * Runtime.getRuntime().availableProcessors()));
    }

    /**
     * Starts counting the virtual threads that {@code names} matches; said once and null when this JVM cannot
     * (the agent counts its platform threads all the same).
     */
    static VirtualThreads start(Syscalls syscalls, ThreadPattern names, EventList events, DescriptorBudget budget) {
        int count = events.events().size();
        if (count > VirtualThreadCounting.MAX_EVENTS) {
            AgentLog.refused("virtual threads are not counted: " + count + " events, at most "
                    + VirtualThreadCounting.MAX_EVENTS + " can be counted for them");
            return null;
        }
        int groups = carrierGroups(budget, count);
        if (groups == 0 || !budget.take(groups * count)) {
            AgentLog.refused("virtual threads are not counted: no file descriptor is left for their carriers: "
                    + budget.reason());
            return null;
        }
        NativeBuffer attrs = VirtualThreadCounters.encode(syscalls, events.events()); // copied by the C library
        VirtualThreads counting = new VirtualThreads(syscalls, names, events, budget, groups * count);
        running = counting;
        int rc = VirtualThreadCounting.start(syscalls, VirtualThreads.class, attrs.address(), count, groups);
        if (rc != 0) {
            running = null;
            budget.giveBack(groups * count);
            AgentLog.refused("virtual threads are not counted: " + why(rc));
            return null;
        }
        return counting;
    }

    private static String why(int rc) {
        if (rc == -Errno.EOPNOTSUPP) {
            return "this JVM does not let an agent follow virtual threads (JVMTI can_support_virtual_threads)";
        }
        if (rc == -Errno.ENOSYS) {
            return "this JVM has no virtual-thread mount events, or perfpin's C library is not loaded";
        }
        return "starting the mount events failed (" + Errno.name(-rc) + ")";
    }

    /** The one counting now; null when none is: then no virtual thread has counts. */
    static VirtualThreads current() {
        return running;
    }

    /** The events its carriers count, by which a {@code @Counted} method's events are found. */
    EventList events() {
        return events;
    }

    /**
     * On a virtual thread: its totals so far ({@link VirtualThreadCounting#read}), counted from now on if it was
     * not before; null when they cannot be read (stopping).
     */
    long[] read() {
        long[] totals = new long[3 * events.events().size() + 1];
        return VirtualThreadCounting.read(syscalls, totals) == 0 ? totals : null;
    }

    /** Called by the C library at a virtual thread's first mount: whether it is counted. Decided once. */
    static boolean virtualSelected(Thread thread) {
        VirtualThreads counting = running;
        try {
            return counting != null && counting.names.matches(thread.getName());
        } catch (RuntimeException e) {
            AgentLog.refused("a virtual thread is not counted: " + e);
            return false;
        }
    }

    /** Called by the C library at a counted virtual thread's end, on it: its totals, queued for the next tick. */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19's, and this is compiled for 17
    static void virtualEnded(Thread thread, long[] totals, int mounts, int[] carriers) {
        VirtualThreads counting = running;
        if (counting != null) {
            counting.ended.add(new Ended(thread.getName(), thread.getId(), totals, mounts, carriers));
        }
    }

    @Override
    public void afterTick(long epochMillis, boolean finalPass, Consumer<String> record) {
        int count = events.events().size();
        for (Ended e; (e = ended.poll()) != null; ) {
            ThreadReport report = ThreadReport.of(e.name, ThreadRecords.VIRTUAL_TID, e.javaId, "", events.names(),
                    VirtualThreadCounters.counts(e.totals, count), i -> null, -1);
            record.accept(ThreadRecords.virtualToJson(epochMillis, report, e.mounts, e.carriers));
        }
    }

    /** Stops the events and gives every carrier's descriptors back; the virtual threads still running get no record. */
    void close() {
        running = null;
        int refused = VirtualThreadCounting.stop(syscalls);
        budget.giveBack(reserved);
        if (refused > 0) {
            AgentLog.refused((refused == 1 ? "1 carrier thread" : refused + " carrier threads") + " found no room for"
                    + " their counters (the file descriptors fds= allows): virtual threads were not counted while"
                    + " mounted on them");
        }
    }
}
