package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeEnrolment;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.PerfIoctl;
import io.perfpin.nativeio.Syscalls;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Counts a list of events for one thread (TID), whichever CPU it runs on.
 *
 * <p>Events are opened as kernel groups, one per PMU (software events together, core-PMU events together,
 * each other PMU apart), so that events of a group are counted over exactly the same time. When the PMU
 * refuses another member because it has run out of counters, the event starts a new group: the groups are
 * then multiplexed, and {@link CounterSnapshot#coverage} says how much of the time each was counted. An
 * event the kernel refuses outright is listed in {@link #unsupported()} with the reason; the others count.
 *
 * <p>Not thread-safe: one reader (the sampler) per group.
 */
public final class CounterGroup implements AutoCloseable {
    private final int tid;
    private final List<EventSpec> events;
    private final List<EventFailure> unsupported;
    private final List<KernelGroup> groups;
    private final DescriptorBudget budget;
    private final String notCounted;

    private CounterGroup(
            int tid,
            List<EventSpec> events,
            List<EventFailure> unsupported,
            List<KernelGroup> groups,
            DescriptorBudget budget,
            String notCounted) {
        this.tid = tid;
        this.events = events;
        this.unsupported = Collections.unmodifiableList(unsupported);
        this.groups = groups;
        this.budget = budget;
        this.notCounted = notCounted;
    }

    /**
     * Opens and enables counters for {@code tid} (0 means the calling thread). Never fails for a refused
     * event: see {@link #unsupported()}. Counting starts when this returns.
     */
    public static CounterGroup open(Syscalls syscalls, int tid, List<EventSpec> events) {
        return open(syscalls, tid, events, new RefusedEvents(), DescriptorBudget.unbounded());
    }

    /**
     * As {@link #open(Syscalls, int, List)}, skipping the events {@code refused} knows the kernel refuses for
     * every thread, and teaching it the ones refused here. Its descriptors come out of {@code budget}: when
     * the budget has too few left for them, or the kernel says the process or the system is out of
     * descriptors, the thread holds none, and every event it asked for is not counted ({@link #notCounted()}).
     */
    public static CounterGroup open(
            Syscalls syscalls, int tid, List<EventSpec> events, RefusedEvents refused, DescriptorBudget budget) {
        List<EventSpec> requested = List.copyOf(events);
        int n = requested.size();
        EventFailure[] known = new EventFailure[n];
        int wanted = 0;
        for (int i = 0; i < n; i++) {
            known[i] = refused.knownFailure(requested.get(i), i);
            wanted += known[i] == null ? 1 : 0;
        }
        if (!budget.take(wanted)) {
            List<EventFailure> refusedAnyway =
                    Arrays.stream(known).filter(Objects::nonNull).collect(Collectors.toList());
            return notCounted(tid, requested, refusedAnyway, Errno.EMFILE, budget.reason(), budget);
        }
        List<EventFailure> unsupported = new ArrayList<>();
        List<KernelGroup> groups = new ArrayList<>(1);
        try {
            CounterGroup notCounted =
                    openEach(syscalls, tid, requested, known, refused, budget, wanted, unsupported, groups);
            if (notCounted != null) {
                return notCounted;
            }
        } catch (RuntimeException | Error e) {
            // thrown by the JVM (out of memory) or an encoding: the descriptors opened so far are not left open
            closeAll(groups);
            budget.giveBack(wanted);
            throw e;
        }
        budget.giveBack(wanted - descriptors(groups));
        for (KernelGroup group : groups) {
            group.ioctl(PerfIoctl.ENABLE);
        }
        return new CounterGroup(tid, requested, unsupported, groups, budget, null);
    }

    /**
     * Opens each event not {@code known} to fail into {@code groups}, and each failure into {@code unsupported}.
     *
     * @return the thread not counted, its descriptors closed and given back, when they ran short; else null
     */
    private static CounterGroup openEach(
            Syscalls syscalls,
            int tid,
            List<EventSpec> requested,
            EventFailure[] known,
            RefusedEvents refused,
            DescriptorBudget budget,
            int wanted,
            List<EventFailure> unsupported,
            List<KernelGroup> groups) {
        int n = requested.size();
        for (int i = 0; i < n; i++) {
            if (known[i] != null) {
                unsupported.add(known[i]);
                continue;
            }
            EventSpec event = requested.get(i);
            int pmu = pmuOf(event);
            KernelGroup group = lastGroupOf(groups, pmu);
            int fd = group == null
                    ? -Errno.ENOENT
                    : syscalls.perfEventOpen(
                            EncodedAttrs.member(syscalls, event),
                            tid,
                            -1,
                            group.leaderFd(),
                            PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
            if (group == null || (fd < 0 && isGroupFull(event, fd))) {
                // A leader of its own: the first of its PMU, or a split off a full group (multiplexed).
                fd = syscalls.perfEventOpen(
                        EncodedAttrs.leader(syscalls, event), tid, -1, -1, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
                if (fd >= 0) {
                    group = new KernelGroup(syscalls, pmu, n - i);
                    groups.add(group);
                }
            }
            if (DescriptorBudget.isShortage(-fd)) {
                // Counting some of a thread's events and not others would leave its metrics half there.
                closeAll(groups);
                budget.giveBack(wanted);
                return notCounted(tid, requested, unsupported, -fd, PerfOpenErrors.explain(event, tid, -fd), budget);
            }
            if (fd < 0) {
                EventFailure failure = PerfOpenErrors.failure(event, i, tid, -fd);
                refused.remember(failure);
                unsupported.add(failure);
                continue;
            }
            group.add(fd, i);
        }
        return null;
    }

    /**
     * The encoded attributes with which the C library opens a thread's {@code events} as one group
     * ({@link io.perfpin.nativeio.NativeEnrolment#start}), the leader's first; null when they are not one group
     * there: more than C opens, or events of more than one PMU (the software events of the defaults are one).
     */
    public static long[] slotAttrs(Syscalls syscalls, List<EventSpec> events) {
        if (events.isEmpty() || events.size() > NativeEnrolment.MAX_EVENTS) {
            return null;
        }
        long[] attrs = new long[events.size()];
        for (int i = 0; i < attrs.length; i++) {
            if (pmuOf(events.get(i)) != pmuOf(events.get(0))) {
                return null;
            }
            attrs[i] = i == 0
                    ? EncodedAttrs.leader(syscalls, events.get(i))
                    : EncodedAttrs.member(syscalls, events.get(i));
        }
        return attrs;
    }

    /**
     * The group the C library opened in {@code slot}, of {@code generation} as it was adopted, with {@link #slotAttrs}
     * of {@code events}, all counted.
     */
    public static CounterGroup inSlot(
            Syscalls syscalls, int tid, List<EventSpec> events, int slot, long generation, DescriptorBudget budget) {
        List<EventSpec> requested = List.copyOf(events);
        List<KernelGroup> groups = new ArrayList<>(1);
        groups.add(KernelGroup.inSlot(syscalls, pmuOf(requested.get(0)), requested.size(), slot, generation));
        return new CounterGroup(tid, requested, new ArrayList<>(), groups, budget, null);
    }

    /**
     * A thread the C library could not count for want of descriptors: {@code errno} 0 when perfpin's budget was
     * spent, else the kernel's (EMFILE, ENFILE) for {@code events}' event {@code index}.
     */
    public static CounterGroup notCountedInSlot(
            int tid, List<EventSpec> events, int errno, int index, DescriptorBudget budget) {
        List<EventSpec> requested = List.copyOf(events);
        return errno == 0
                ? notCounted(tid, requested, List.of(), Errno.EMFILE, budget.reason(), budget)
                : notCounted(
                        tid,
                        requested,
                        List.of(),
                        errno,
                        PerfOpenErrors.explain(requested.get(index), tid, errno),
                        budget);
    }

    /** A thread without a descriptor: its events are not counted, for {@code why} unless refused anyway. */
    private static CounterGroup notCounted(
            int tid,
            List<EventSpec> requested,
            List<EventFailure> refusedAnyway,
            int errno,
            String why,
            DescriptorBudget budget) {
        List<EventFailure> failures = DescriptorBudget.shortage(requested, refusedAnyway, errno, why);
        return new CounterGroup(tid, requested, failures, new ArrayList<>(), budget, why);
    }

    private static int descriptors(List<KernelGroup> groups) {
        int fds = 0;
        for (int i = 0; i < groups.size(); i++) { // no iterator: a close must not allocate ({@link #close})
            fds += groups.get(i).size();
        }
        return fds;
    }

    /** Which kernel group an event may join: the core PMU serves the generic, cache and raw types. */
    private static int pmuOf(EventSpec event) {
        return switch (event.type()) {
            case PerfEventAttr.TYPE_HARDWARE, PerfEventAttr.TYPE_HW_CACHE, PerfEventAttr.TYPE_RAW ->
                PerfEventAttr.TYPE_HARDWARE;
            default -> event.type();
        };
    }

    private static KernelGroup lastGroupOf(List<KernelGroup> groups, int pmu) {
        for (int i = groups.size() - 1; i >= 0; i--) {
            if (groups.get(i).pmu == pmu) {
                return groups.get(i);
            }
        }
        return null;
    }

    /** The PMU's group validation answers EINVAL (x86) or ENOSPC when the counters are all taken. */
    private static boolean isGroupFull(EventSpec event, int fd) {
        return !event.isSoftware() && (fd == -Errno.EINVAL || fd == -Errno.ENOSPC);
    }

    public int tid() {
        return tid;
    }

    /** The events asked for, in order: snapshot index i is events().get(i). */
    public List<EventSpec> events() {
        return events;
    }

    /** The events the kernel refused, with reasons; their snapshot entries stay uncounted. */
    public List<EventFailure> unsupported() {
        return unsupported;
    }

    /**
     * Why this thread holds no descriptor at all (perfpin's budget was spent, or the process or the system
     * was out of descriptors); null when its counters opened.
     */
    public String notCounted() {
        return notCounted;
    }

    /** The highest descriptor its groups hold, or -1 where they hold none (or C does). */
    public int highestDescriptor() {
        int highest = -1;
        // indexed: an iterator would be an allocation on the starting thread
        for (int i = 0; i < groups.size(); i++) {
            highest = Math.max(highest, groups.get(i).highestDescriptor());
        }
        return highest;
    }

    /** How many kernel groups were needed: more than one per PMU means multiplexing. */
    public int kernelGroups() {
        return groups.size();
    }

    public CounterSnapshot newSnapshot() {
        return CounterGroup.snapshotFor(events, unsupported);
    }

    /** A snapshot in which the refused events are marked as having no counts at all. */
    static CounterSnapshot snapshotFor(List<EventSpec> events, List<EventFailure> unsupported) {
        CounterSnapshot snapshot = new CounterSnapshot(events.size());
        for (EventFailure failure : unsupported) {
            snapshot.notOpened(failure.index());
        }
        return snapshot;
    }

    /** Reads every counted event into {@code into}; returns 0, or -errno of the first group that failed. */
    public int read(CounterSnapshot into) {
        int result = 0;
        for (int i = 0; i < groups.size(); i++) {
            int rc = groups.get(i).readInto(into);
            if (rc < 0 && result == 0) {
                result = rc;
            }
        }
        return result;
    }

    public void disable() {
        for (KernelGroup group : groups) {
            group.ioctl(PerfIoctl.DISABLE);
        }
    }

    /**
     * Closes every descriptor, given back to the budget; the counts read so far stay in the caller's snapshots. It
     * allocates nothing, so that a close that follows a failure for want of heap closes all the same.
     */
    @Override
    public void close() {
        int held = descriptors(groups);
        closeAll(groups);
        groups.clear();
        budget.giveBack(held);
    }

    /** A loop, not a method reference: a thread's first close is on a short main's exit path, where linking one cost. */
    private static void closeAll(List<KernelGroup> groups) {
        for (int i = 0; i < groups.size(); i++) {
            groups.get(i).close();
        }
    }
}
