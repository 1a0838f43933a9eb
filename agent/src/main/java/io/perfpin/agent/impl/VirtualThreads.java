package io.perfpin.agent.impl;

import io.perfpin.agent.metrics.MetricsExport;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.VirtualThreadCounters;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.export.ExportedThreads;
import io.perfpin.export.ThreadGroupName;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeBuffer;
import io.perfpin.nativeio.PmuModel;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.VirtualThreadCounting;
import io.perfpin.options.ThreadPattern;
import io.perfpin.registry.RunningVirtualGroup;
import io.perfpin.registry.SampledThread;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The {@code virtual=REGEX} option: each virtual thread whose name matches is counted over the time it is mounted
 * ({@link VirtualThreadCounting}), and its final record is written at its end. The C library calls the two static
 * hooks here; a virtual thread's end only queues its totals, which the sampler's next tick turns into its record,
 * as it writes every other (the recording is written by the sampler only), and hands to the registry, whose stats
 * file shows it in its group. Those still running at {@link #close} are queued there, for the registry's final tick.
 * While they run, each tick sums the totals of each group's running members (as of their last unmount) in the C
 * library, for the stats file and the metrics export: a long-lived virtual thread (a connection's handler) is seen
 * while it lives, not only at its end. The groups are numbered at selection, the first
 * {@value VirtualThreadCounting#MAX_RUNNING_GROUPS} named; the members of later ones are seen at their end only.
 *
 * <p>The heap that ended virtual threads hold until the next tick is bounded: a tick takes those that waited when it
 * began, and no more ({@link #afterTick}), and at most {@value #MAX_WAITING} wait; one that ends past them goes to its
 * group's totals, in the stats file and the export, with no record of its own ({@link Folded}), said once, and how
 * many at close. A thread per request in a burst of 400,000 once kept one tick writing for the whole burst, and the
 * heap the ended ones held (273 MB) ran the JVM out of memory at -Xmx128m.
 */
final class VirtualThreads implements ThreadRegistry.TickListener {
    /**
     * The most ended virtual threads that wait for the next tick to write their records, a hundred bytes or two each:
     * past it, one that ends goes to its group's totals only ({@link Folded}), and a burst of them between two ticks
     * holds no more of the heap.
     */
    static final int MAX_WAITING = 16_384;

    /** The one running; null before start and after close: the hooks then select nothing and drop what ends. */
    private static volatile VirtualThreads running;

    private final Syscalls syscalls;
    private final ThreadPattern names;
    /** The counted virtual threads alive at once (virtual-max=). */
    private final int max;

    private final EventList events;
    private final Queue<Ended> ended = new ConcurrentLinkedQueue<>();
    /** How many {@link #ended} holds: a tick takes as many as there were when it began, and no more. */
    private final AtomicInteger waiting = new AtomicInteger();
    /** By group, the totals of those that ended past {@link #MAX_WAITING}, for the next tick. */
    private final Map<String, Folded> folded = new ConcurrentHashMap<>();
    /** How many ended past {@link #MAX_WAITING} since counting began, said when it stops. */
    private final AtomicLong foldedInAll = new AtomicLong();

    private final DescriptorBudget budget;
    /** Whose stats file shows the ended ones by group. */
    private final ThreadRegistry registry;
    /** The descriptors taken from the budget for the carriers' groups, given back at close. */
    private final int reserved;

    /** Null without a metrics export. */
    private volatile MetricsExport exports;

    /** The groups numbered so far, by name, and each number's name. */
    private final Map<String, Integer> groups = new ConcurrentHashMap<>();

    private final AtomicReferenceArray<String> groupNames =
            new AtomicReferenceArray<>(VirtualThreadCounting.MAX_RUNNING_GROUPS);
    /** The tick's sums of the running members, per group: made once, written by the C library each tick. */
    private final long[] runningSums;

    /**
     * A virtual thread that ended, as the tick's work takes threads: what its record needs, and not the thread, which
     * would keep the JVM's whole state of it while it waits for the tick.
     */
    private static final class Ended implements SampledThread {
        final String name;
        final long javaId;
        final EventList events;
        /** As the C library gives them ({@link VirtualThreadCounting}), made counts by the tick that takes it. */
        final long[] totals;

        final int mounts;
        final int[] carriers;
        /** It still ran when counting stopped (detach, the JVM's exit): its record says so, as a platform one's. */
        final boolean stillRunning;

        CounterSnapshot counts;

        Ended(Thread thread, EventList events, long[] totals, int mounts, int[] carriers, boolean stillRunning) {
            this.name = thread.getName();
            this.javaId = javaId(thread);
            this.events = events;
            this.totals = totals;
            this.mounts = mounts;
            this.carriers = carriers;
            this.stillRunning = stillRunning;
        }

        @SuppressWarnings("deprecation") // Thread.getId(): threadId() is JDK 19's, and this is compiled for 17
        private static long javaId(Thread thread) {
            return thread.getId();
        }

        /** Null: the thread is not kept. */
        @Override
        public Thread thread() {
            return null;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int tid() {
            return ThreadRecords.VIRTUAL_TID;
        }

        @Override
        public String cpus() {
            return "";
        }

        @Override
        public boolean pinned() {
            return false;
        }

        @Override
        public boolean isCounted() {
            return true;
        }

        @Override
        public EventList events() {
            return events;
        }

        @Override
        public CounterSnapshot counts() {
            return counts;
        }

        @Override
        public long enrolledNanos() {
            return 0; // not known: its record's wallNanos says -1
        }
    }

    /**
     * Ended virtual threads of one group that found {@link #ended} full: their totals summed as the C library gives
     * each one's (per event its three counts, then the mask of those counted), and how many they are.
     */
    private static final class Folded {
        private final long[] totals;
        private int members;

        Folded(int events) {
            totals = new long[3 * events + 1];
        }

        synchronized void add(long[] one) {
            int mask = totals.length - 1;
            for (int i = 0; i < mask; i++) {
                totals[i] += one[i];
            }
            totals[mask] |= one[mask];
            members++;
        }

        /** How many were added since the last call, their totals copied into {@code into}; both zero from now. */
        synchronized int take(long[] into) {
            int taken = members;
            System.arraycopy(totals, 0, into, 0, totals.length);
            Arrays.fill(totals, 0);
            members = 0;
            return taken;
        }
    }

    private VirtualThreads(
            Syscalls syscalls, ThreadPattern names, int max, EventList events, ThreadRegistry registry, int reserved) {
        this.syscalls = syscalls;
        this.names = names;
        this.max = max;
        this.events = events;
        this.registry = registry;
        this.budget = registry.descriptors();
        this.reserved = reserved;
        this.runningSums = new long
                [VirtualThreadCounting.MAX_RUNNING_GROUPS
                        * VirtualThreadCounting.groupStride(events.events().size())];
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
    static VirtualThreads start(
            Syscalls syscalls, ThreadPattern names, int max, EventList events, ThreadRegistry registry) {
        DescriptorBudget budget = registry.descriptors();
        int count = events.events().size();
        if (count > VirtualThreadCounting.MAX_EVENTS) {
            AgentLog.refused("virtual threads are not counted: " + count + " events, at most "
                    + VirtualThreadCounting.MAX_EVENTS + " can be counted for them");
            return null;
        }
        String simulated = simulatedEvent(syscalls, events);
        if (simulated != null) {
            // Carriers open their counters in C, past the simulation: its hardware events would read the real PMU's
            // refusal, in records that say the simulated PMU counted them.
            AgentLog.refused("virtual threads are not counted: perfpin's C library opens their counters, which the "
                    + syscalls.simulatedPmu() + " PMU (tests only) does not answer, so " + simulated + " would not"
                    + " be counted; without hardware events in events= they are");
            return null;
        }
        int groups = carrierGroups(budget, count);
        if (groups == 0 || !budget.take(groups * count)) {
            AgentLog.refused("virtual threads are not counted: no file descriptor is left for their carriers: "
                    + budget.reason());
            return null;
        }
        NativeBuffer attrs = VirtualThreadCounters.encode(syscalls, events.events()); // copied by the C library
        VirtualThreads counting = new VirtualThreads(syscalls, names, max, events, registry, groups * count);
        running = counting;
        int rc = VirtualThreadCounting.start(syscalls, VirtualThreads.class, attrs.address(), count, groups, max);
        if (rc != 0) {
            running = null;
            budget.giveBack(groups * count);
            AgentLog.refused("virtual threads are not counted: " + why(rc));
            return null;
        }
        return counting;
    }

    /** The first event a simulated PMU would answer, where one answers this JVM's hardware events; else null. */
    private static String simulatedEvent(Syscalls syscalls, EventList events) {
        if (syscalls.simulatedPmu() == null) {
            return null;
        }
        for (EventSpec event : events.events()) {
            if (PmuModel.simulates(event.type())) {
                return event.name();
            }
        }
        return null;
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

    /**
     * Called by the C library at a virtual thread's first mount: its group's number when it is counted, else
     * {@link VirtualThreadCounting#NOT_COUNTED}. Decided once.
     */
    static int virtualSelected(Thread thread) {
        VirtualThreads counting = running;
        try {
            String name = thread.getName();
            return counting != null && counting.names.matches(name)
                    ? counting.groupNumber(name)
                    : VirtualThreadCounting.NOT_COUNTED;
        } catch (RuntimeException e) {
            AgentLog.refused("a virtual thread is not counted: " + e);
            return VirtualThreadCounting.NOT_COUNTED;
        }
    }

    /**
     * The number of the group of a virtual thread named so, given on its first member; past the first
     * {@value VirtualThreadCounting#MAX_RUNNING_GROUPS}, that bound itself, which the C library sums in no group.
     */
    private int groupNumber(String name) {
        String group = ThreadGroupName.of(name);
        Integer known = groups.get(group);
        if (known != null) {
            return known;
        }
        synchronized (groups) {
            known = groups.get(group);
            if (known != null) {
                return known;
            }
            int number = groups.size();
            if (number == VirtualThreadCounting.MAX_RUNNING_GROUPS) {
                return number; // not kept: a name per request must not grow the map
            }
            groupNames.set(number, group);
            groups.put(group, number);
            return number;
        }
    }

    /**
     * Called by the C library at a counted virtual thread's end, on it, or at {@link #close}, on the closing thread,
     * for one still running: its totals, queued for the next tick (the registry's final one, at close).
     */
    static void virtualEnded(Thread thread, long[] totals, int mounts, int[] carriers, boolean stillRunning) {
        VirtualThreads counting = running;
        if (counting != null) {
            counting.ended(thread, totals, mounts, carriers, stillRunning);
        }
    }

    /**
     * Queued for its record, or, past {@link #MAX_WAITING} waiting, added to its group's totals only: a burst of short
     * virtual threads between two ticks costs a bounded heap, whatever their number.
     */
    private void ended(Thread thread, long[] totals, int mounts, int[] carriers, boolean stillRunning) {
        if (waiting.incrementAndGet() <= MAX_WAITING) {
            ended.add(new Ended(thread, events, totals, mounts, carriers, stillRunning));
            return;
        }
        waiting.decrementAndGet();
        String group = ThreadGroupName.of(thread.getName());
        Folded into = folded.get(group);
        if (into == null) {
            // a name per request makes a group per request: past the export's bound, they share one
            into = folded.computeIfAbsent(
                    folded.size() < ExportedThreads.MAX_GROUP_SERIES ? group : ExportedThreads.OTHER_GROUP,
                    g -> new Folded(events.events().size()));
        }
        into.add(totals);
        foldedInAll.incrementAndGet();
    }

    /** From now on, ended virtual threads go to {@code export} too, by group; this listener must run before it. */
    void exportTo(MetricsExport export) {
        exports = export;
    }

    /** Its last tick goes to the recording and the stats file, which the registry asks about, and the export's own. */
    @Override
    public boolean wantsLastTick() {
        return false;
    }

    @Override
    public void afterTick(long epochMillis, boolean finalPass, Consumer<String> record) {
        if (VirtualThreadCounting.refused(syscalls) > 0) {
            AgentLog.refused("virtual threads beyond " + max + " counted at once are not counted (virtual-max=" + max
                    + "): the C library keeps a state for each, and the option bounds their memory");
        }
        // those that end while this tick writes wait for the next: a burst of them cannot keep one tick going
        int queued = waiting.get();
        int count = events.events().size();
        List<Ended> tick = new ArrayList<>(queued);
        for (int n = 0; n < queued; n++) {
            Ended e = ended.poll();
            if (e == null) {
                break;
            }
            waiting.decrementAndGet();
            e.counts = VirtualThreadCounters.counts(e.totals, count);
            tick.add(e);
            ThreadReport report = ThreadReport.of(
                            e.name, e.tid(), e.javaId, e.cpus(), events.names(), e.counts, i -> null, -1)
                    .withState(e.stillRunning ? ThreadState.RUNNING : ThreadState.ENDED);
            record.accept(ThreadRecords.virtualToJson(epochMillis, report, e.mounts, e.carriers));
            registry.virtualEnded(e.name, events, e.counts);
        }
        MetricsExport export = exports;
        if (export != null && !tick.isEmpty()) {
            export.virtualEnded(tick);
        }
        addFolded(export);
        // After the ended ones are taken: one that ends between the two is in neither for this tick (the stats file
        // and the export hold their sums up), never in both.
        List<RunningVirtualGroup> runningGroups = runningGroups();
        registry.virtualRunning(runningGroups);
        if (export != null) {
            export.virtualRunning(runningGroups);
        }
    }

    /** The totals of those that ended without a record since the last tick, to their groups. */
    private void addFolded(MetricsExport export) {
        if (folded.isEmpty()) {
            return;
        }
        if (running == this) {
            AgentLog.refused("virtual threads end faster than their records are written: past " + MAX_WAITING
                    + " waiting for the next tick, one that ends has no record of its own, and its counts go to its"
                    + " group's totals only (the stats file, the metrics export); how many is said when counting"
                    + " stops");
        }
        long[] totals = new long[3 * events.events().size() + 1];
        for (Map.Entry<String, Folded> group : folded.entrySet()) {
            int members = group.getValue().take(totals);
            if (members > 0) {
                CounterSnapshot counts =
                        VirtualThreadCounters.counts(totals, events.events().size());
                registry.virtualFolded(group.getKey(), events, counts, members);
                if (export != null) {
                    export.virtualFolded(group.getKey(), events, counts, members);
                }
            }
        }
    }

    /** The groups with members running now, their totals so far; none once counting stopped. */
    private List<RunningVirtualGroup> runningGroups() {
        int written = VirtualThreadCounting.running(syscalls, runningSums);
        int count = events.events().size();
        int stride = VirtualThreadCounting.groupStride(count);
        List<RunningVirtualGroup> running = new ArrayList<>();
        for (int g = 0; g < written; g++) {
            int members = (int) runningSums[g * stride];
            String name = groupNames.get(g);
            if (members > 0 && name != null) {
                long[] totals = Arrays.copyOfRange(runningSums, g * stride + 1, (g + 1) * stride);
                running.add(
                        new RunningVirtualGroup(name, members, events, VirtualThreadCounters.counts(totals, count)));
            }
        }
        return running;
    }

    /**
     * Stops the events and gives every carrier's descriptors back; the virtual threads still running are queued with
     * their totals so far, for the registry's final tick, which comes after: their records say they still ran.
     */
    void close() {
        int refused;
        int[] left = new int[1 + 8];
        try {
            // calls virtualEnded, which needs running, for those still running
            refused = VirtualThreadCounting.stop(syscalls, left);
        } finally {
            running = null;
        }
        budget.giveBack(reserved);
        if (left[0] > 0) {
            String tids = Arrays.stream(left, 1, 1 + Math.min(left[0], left.length - 1))
                    .mapToObj(Integer::toString)
                    .collect(Collectors.joining(", "));
            AgentLog.info((left[0] == 1 ? "1 carrier thread was" : left[0] + " carrier threads were")
                    + " still in a virtual-thread callback " + VirtualThreadCounting.STOP_WAIT_MILLIS + " ms after"
                    + " counting stopped (TID " + tids + (left[0] > left.length - 1 ? ", ..." : "") + "): each"
                    + " closes its counters when that callback returns");
        }
        long recordless = foldedInAll.get();
        if (recordless > 0) {
            AgentLog.refused(recordless
                    + (recordless == 1
                            ? " virtual thread has no record of its own in the recording: "
                            : " virtual threads have no record of their own in the recording: ")
                    + MAX_WAITING + " others waited for the next tick as they ended; their counts are in their groups'"
                    + " totals (the stats file, the metrics export)");
        }
        if (refused > 0) {
            AgentLog.refused((refused == 1 ? "1 carrier thread" : refused + " carrier threads") + " found no room for"
                    + " their counters (the file descriptors fds= allows): virtual threads were not counted while"
                    + " mounted on them");
        }
    }
}
