package io.perfpin.report;

import io.perfpin.counter.Counts;
import io.perfpin.jvm.LastCpu;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.StatsSnapshot;
import io.perfpin.stats.ThreadSample;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What a viewer of a stats file shows, in the agent's windows: a thread's counts between two samples that the
 * agent published, over the time between them by the agent's own clock, never the viewer's. Each window runs
 * from when the earlier counts were about to be read to when the later ones had been ({@link StatsLayout}), so it
 * holds all the time the counts can have taken: a thread's task-clock over it never exceeds it, and
 * {@code cpu-utilisation} is at most 1.
 *
 * <p>A viewer keeps one of these and asks it for the {@link #next} frame each time the agent has published
 * another sample: each thread then shows its counts since the frame before, or, the first time it is seen, since
 * it was enrolled, so its windows add up to its totals. A thread that ended, or whose counting stopped while it
 * still ran (the agent detached, the JVM exited), shows its last window once, with its {@link ThreadState}. A
 * viewer slower than the agent shows several of the agent's samples in one window; a faster one each sample once.
 *
 * <p>Virtual threads are shown by group, as the stats file keeps them: a frame shows each group whose members ended or
 * ran since the frame before, as three rows ({@link VirtualThreadGroups}): the counts its members added in the window,
 * those that ended and those that run (their totals so far, as of their last unmount), under a name that says how many
 * ended and how many run now, then the p50 and p99 of the totals of a member that ended (none until one has).
 *
 * <p>Every row names the simulated PMU that made its hardware counts, as the stats file does (tests only), so that a
 * viewer's records say it as the agent's own do.
 */
public final class StatsWindows {
    private static final String NOT_ITS_EVENT = "this thread does not count it";

    private final long pid;
    /** The last sample shown of each thread still live then. */
    private final Map<Key, ThreadSample> shown = new HashMap<>();
    /** Each virtual group as last shown, by name. */
    private final Map<String, GroupShown> groupsShown = new HashMap<>();
    /** The finished threads whose last window was shown; forgotten once they leave the file's ring. */
    private final Set<Key> done = new HashSet<>();

    private long samplesShown = -1;
    private long sampleNanosShown;

    /** A virtual group's ended and running members' sums as a frame showed them, and when each was read. */
    private record GroupShown(Counts sums, long endedReadTo, long runningReadTo) {}

    /** One thread's enrolment: a TID and a Java thread id are reused, the time it was enrolled is not. */
    private record Key(int tid, long javaId, long enrolledNanos) {
        static Key of(ThreadSample s) {
            return new Key(s.tid(), s.javaId(), s.enrolledNanos());
        }
    }

    /**
     * One frame: each thread's window since the frame before (since it was enrolled, in the first).
     *
     * @param virtualGroups the rows of each group of virtual threads that a member joined since the frame before
     *                      (all of them in the first), whatever the threads a viewer selects: the agent selected
     *                      them (its option {@code virtual=})
     * @param samples   how many of the agent's samples the frame spans (since the frame before)
     * @param spanNanos the agent's time from the sample of the frame before to this frame's last; -1 when every
     *                  window starts at its thread's enrolment
     * @param first     whether it is the first frame, whose windows start at each thread's enrolment
     */
    public record Frame(
            List<ThreadReport> threads,
            List<ThreadReport> virtualGroups,
            long samples,
            long spanNanos,
            boolean first) {}

    /** @param pid the JVM whose stats file this is: a live thread's last CPU is read from its /proc */
    public StatsWindows(long pid) {
        this.pid = pid;
    }

    /** Whether {@code snapshot} holds a sample of the agent that no frame showed yet. */
    public boolean hasNew(StatsSnapshot snapshot) {
        return snapshot.samples() != samplesShown;
    }

    /** The next frame: every thread with counts not shown yet, in the file's order (live first). */
    public Frame next(StatsSnapshot snapshot) {
        boolean first = samplesShown < 0;
        long samples = first ? snapshot.samples() : snapshot.samples() - samplesShown;
        List<ThreadReport> threads = new ArrayList<>();
        Map<Key, ThreadSample> live = new HashMap<>();
        Set<Key> inRing = new HashSet<>();
        List<ThreadReport> groups = new ArrayList<>();
        Map<String, ThreadSample> runningSlots = runningSlots(snapshot);
        boolean groupShown = false; // a group's p50 and p99 follow its totals in the file, and with them here
        for (ThreadSample now : snapshot.threads()) {
            if (now.state() == StatsLayout.STATE_VIRTUAL_GROUP) {
                ThreadSample run = runningSlots.get(now.name());
                GroupShown shownNow = new GroupShown(
                        groupSums(snapshot, now, run), now.readToNanos(), run == null ? -1 : run.readToNanos());
                GroupShown before = groupsShown.put(now.name(), shownNow);
                groupShown = before == null
                        || before.endedReadTo != shownNow.endedReadTo
                        || before.runningReadTo != shownNow.runningReadTo;
                if (groupShown) {
                    groups.add(groupRow(snapshot, before == null ? null : before.sums, now, run, shownNow.sums));
                }
                continue;
            }
            if (now.isVirtualGroup()) {
                if (groupShown && isPercentile(now)) {
                    groups.add(percentileRow(snapshot, now));
                }
                continue;
            }
            if (now.state() == StatsLayout.STATE_AGGREGATE) {
                continue;
            }
            Key key = Key.of(now);
            boolean running = now.state() == StatsLayout.STATE_RUNNING;
            if (!running) {
                inRing.add(key);
            }
            ThreadSample before = shown.get(key);
            if (running) {
                live.put(key, now);
            }
            boolean seen = before != null && before.readToNanos() == now.readToNanos() && running;
            if (seen || !running && done.contains(key)) {
                continue;
            }
            threads.add(window(snapshot, before, now));
            if (!running) {
                done.add(key);
            }
        }
        shown.clear();
        shown.putAll(live);
        done.retainAll(inRing);
        long span = first || samplesShown == 0 ? -1 : snapshot.sampleNanos() - sampleNanosShown;
        samplesShown = snapshot.samples();
        sampleNanosShown = snapshot.sampleNanos();
        return new Frame(threads, groups, samples, span, first);
    }

    /** Each thread's totals since it was enrolled: the live ones, then those that finished and are in the ring. */
    public List<ThreadReport> totals(StatsSnapshot snapshot) {
        List<ThreadReport> totals = new ArrayList<>();
        for (ThreadSample s : snapshot.threads()) {
            if (s.state() == StatsLayout.STATE_RUNNING || s.state() == StatsLayout.STATE_FINISHED) {
                totals.add(window(snapshot, null, s));
            }
        }
        return totals;
    }

    /**
     * Each group of virtual threads, as three rows ({@link VirtualThreadGroups}): its members' totals since they
     * were counted, those that ended and those that run (so far), under a name that says how many of each, then the
     * p50 and p99 of the totals of a member that ended (none until one has).
     */
    public static List<ThreadReport> virtualGroups(StatsSnapshot snapshot) {
        List<ThreadReport> rows = new ArrayList<>();
        Map<String, ThreadSample> running = runningSlots(snapshot);
        for (ThreadSample s : snapshot.threads()) {
            if (s.state() == StatsLayout.STATE_VIRTUAL_GROUP) {
                ThreadSample run = running.get(s.name());
                rows.add(groupRow(snapshot, null, s, run, groupSums(snapshot, s, run)));
            } else if (isPercentile(s)) {
                rows.add(percentileRow(snapshot, s));
            }
        }
        return rows;
    }

    /** The running-members slot of each virtual group, by name. */
    private static Map<String, ThreadSample> runningSlots(StatsSnapshot snapshot) {
        Map<String, ThreadSample> running = new HashMap<>();
        for (ThreadSample s : snapshot.threads()) {
            if (s.state() == StatsLayout.STATE_VIRTUAL_RUNNING) {
                running.put(s.name(), s);
            }
        }
        return running;
    }

    /** A group's p50 or p99 slot, once a member ended: before, it holds nothing to show. */
    private static boolean isPercentile(ThreadSample s) {
        return (s.state() == StatsLayout.STATE_VIRTUAL_P50 || s.state() == StatsLayout.STATE_VIRTUAL_P99)
                && s.threads() > 0;
    }

    /** The sums of a group's ended members and its running ones ({@code running} null: none). */
    private static Counts groupSums(StatsSnapshot snapshot, ThreadSample ended, ThreadSample running) {
        Sum sum = new Sum(snapshot.eventNames().size());
        sum.add(ended);
        if (running != null) {
            sum.add(running);
        }
        return sum;
    }

    /**
     * A group's counts since {@code before} (all of them when null), ended and running members', over a time not
     * known: mounted time only. Its state is running while a member runs.
     */
    private static ThreadReport groupRow(
            StatsSnapshot snapshot, Counts before, ThreadSample ended, ThreadSample running, Counts now) {
        Counts counts = before == null ? now : new Difference(now, before);
        int runningMembers = running == null ? 0 : running.threads();
        return ThreadReport.of(
                        VirtualThreadGroups.liveName(ended.name(), ended.threads(), runningMembers),
                        0,
                        0,
                        "",
                        snapshot.eventNames(),
                        counts,
                        e -> refusal(snapshot, now, e),
                        -1)
                .withSources(sources(snapshot, now))
                .withState(runningMembers > 0 ? ThreadState.RUNNING : ThreadState.ENDED)
                .withPmu(snapshot.pmu())
                .withNameCut(ended.nameCut());
    }

    /** A group's p50 or p99 slot: per event its value, as the agent's histogram has it. */
    private static ThreadReport percentileRow(StatsSnapshot snapshot, ThreadSample s) {
        Map<String, Long> counters = new LinkedHashMap<>();
        for (int e = 0; e < s.events(); e++) {
            if (s.isOpened(e)) {
                counters.put(snapshot.eventNames().get(e), s.raw(e));
            }
        }
        int percent = s.state() == StatsLayout.STATE_VIRTUAL_P50 ? 50 : 99;
        return VirtualThreadGroups.percentileRow(VirtualThreadGroups.percentileName(s.name(), percent), counters)
                .withPmu(snapshot.pmu())
                .withNameCut(s.nameCut());
    }

    /**
     * All finished threads' totals summed, those of the ring and the older ones of the aggregate alike; null when
     * none finished. Its name says what they are in their rows' own words: those that ended, and those that still ran
     * when their counting stopped, in {@code runningLabel}'s ({@code (6 threads: 4 ended, 2 running at exit)}).
     */
    public static ThreadReport finishedSum(StatsSnapshot snapshot, String runningLabel) {
        int events = snapshot.eventNames().size();
        Sum sum = new Sum(events);
        long ended = 0;
        long running = 0;
        for (ThreadSample s : snapshot.threads()) {
            boolean finished = s.state() == StatsLayout.STATE_FINISHED || s.state() == StatsLayout.STATE_AGGREGATE;
            if (finished && s.threads() > 0) {
                if (s.stillRunning()) {
                    running += s.threads();
                } else {
                    ended += s.threads();
                }
                sum.add(s);
            }
        }
        if (ended + running == 0) {
            return null;
        }
        String label;
        if (ended > 0 && running > 0) {
            label = ended + running + " threads: " + ended + " ended, " + running + " " + runningLabel;
        } else if (ended > 0) {
            label = ended + " ended " + (ended == 1 ? "thread" : "threads");
        } else {
            label = running + (running == 1 ? " thread " : " threads ") + runningLabel;
        }
        return ThreadReport.of(
                        "(" + label + ")", 0, -1, "", snapshot.eventNames(), sum, e -> refusal(snapshot, sum, e), -1)
                .withSources(sources(snapshot, sum))
                .withPmu(snapshot.pmu());
    }

    /** The counts of {@code now} since {@code before} (since its enrolment when null), over the agent's time. */
    private ThreadReport window(StatsSnapshot snapshot, ThreadSample before, ThreadSample now) {
        Counts counts = before == null ? now : new Difference(now, before);
        long from = before == null ? now.enrolledNanos() : before.readFromNanos();
        boolean running = now.state() == StatsLayout.STATE_RUNNING;
        ThreadReport report = ThreadReport.of(
                        now.name(),
                        now.tid(),
                        now.javaId(),
                        now.cpus(),
                        snapshot.eventNames(),
                        counts,
                        e -> refusal(snapshot, now, e),
                        now.readToNanos() - from)
                .withSources(sources(snapshot, now))
                .withPin(pin(now))
                .withState(running || now.stillRunning() ? ThreadState.RUNNING : ThreadState.ENDED)
                .withPmu(snapshot.pmu())
                .withNameCut(now.nameCut());
        OptionalInt lastCpu = running ? LastCpu.of(pid, now.tid()) : OptionalInt.empty();
        return report.withLastCpu(lastCpu);
    }

    /** Why a thread has no counts of a column: the kernel's refusal, or it does not count that event. */
    private static String refusal(StatsSnapshot snapshot, Counts counts, int e) {
        if (counts.isOpened(e)) {
            return null;
        }
        String refused = snapshot.eventRefusal(e);
        return refused.isEmpty() ? NOT_ITS_EVENT : refused;
    }

    private static Map<String, String> sources(StatsSnapshot snapshot, Counts counts) {
        Map<String, String> sources = new LinkedHashMap<>();
        for (int e = 0; e < snapshot.eventNames().size(); e++) {
            if (counts.isOpened(e) && !snapshot.eventSource(e).isEmpty()) {
                sources.put(snapshot.eventNames().get(e), snapshot.eventSource(e));
            }
        }
        return sources;
    }

    private static PinSource pin(ThreadSample s) {
        return switch (s.pin()) {
            case StatsLayout.PIN_PERFPIN -> PinSource.PERFPIN;
            case StatsLayout.PIN_INHERITED -> PinSource.INHERITED;
            default -> PinSource.NONE;
        };
    }

    /** Later counts less earlier ones; a column the earlier sample did not have yet counts from zero. */
    private static final class Difference implements Counts {
        private final Counts later;
        private final Counts earlier;

        Difference(Counts later, Counts earlier) {
            this.later = later;
            this.earlier = earlier;
        }

        @Override
        public int size() {
            return later.size();
        }

        @Override
        public boolean isOpened(int e) {
            return later.isOpened(e);
        }

        @Override
        public long raw(int e) {
            return later.raw(e) - (e < earlier.size() ? earlier.raw(e) : 0);
        }

        @Override
        public long enabledNanos(int e) {
            return later.enabledNanos(e) - (e < earlier.size() ? earlier.enabledNanos(e) : 0);
        }

        @Override
        public long runningNanos(int e) {
            return later.runningNanos(e) - (e < earlier.size() ? earlier.runningNanos(e) : 0);
        }
    }

    /** The counts of several finished threads added up; a column is counted when any of them counted it. */
    private static final class Sum implements Counts {
        private final long[] raw;
        private final long[] enabled;
        private final long[] running;
        private final boolean[] opened;

        Sum(int events) {
            raw = new long[events];
            enabled = new long[events];
            running = new long[events];
            opened = new boolean[events];
        }

        void add(ThreadSample s) {
            for (int e = 0; e < raw.length; e++) {
                raw[e] += s.raw(e);
                enabled[e] += s.enabledNanos(e);
                running[e] += s.runningNanos(e);
                // the aggregate keeps no bits: its sums show what its threads counted
                opened[e] |= s.state() == StatsLayout.STATE_AGGREGATE ? s.enabledNanos(e) > 0 : s.isOpened(e);
            }
        }

        @Override
        public int size() {
            return raw.length;
        }

        @Override
        public boolean isOpened(int e) {
            return opened[e];
        }

        @Override
        public long raw(int e) {
            return raw[e];
        }

        @Override
        public long enabledNanos(int e) {
            return enabled[e];
        }

        @Override
        public long runningNanos(int e) {
            return running[e];
        }
    }
}
