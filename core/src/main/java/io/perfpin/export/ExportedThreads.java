package io.perfpin.export;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.options.ThreadPattern;
import io.perfpin.registry.RunningVirtualGroup;
import io.perfpin.registry.SampledThread;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The registry's threads as metrics with a bounded number of series, built on the sampler's tick from the counts
 * it has just read, so that a scrape or an export makes no system call and reads an immutable
 * {@link ExportSnapshot}.
 *
 * <p>The cardinality rule: a thread's counts go to its group's series ({@link ThreadGroupName}), summed over the
 * group's threads, live and finished. A thread perfpin pinned, or one whose name the {@code export-threads} regex
 * matches, has a series of its own while it lives, labelled with its name and CPUs as they were when the export
 * first saw it. Once it has ended, its series shows its final counts for a grace period, then folds into its
 * group's series, which from then on holds them: the sum of a group's series never drops or jumps, and ended
 * threads keep no series. The grace period is time, not a scrape: every reader (two Prometheus servers of a pair,
 * an OTLP export at its own interval) sees the final counts alike, and the bound holds with no reader at all. At
 * most {@value #MAX_GROUP_SERIES} groups and {@value #MAX_THREAD_SERIES} threads of their own at once: past those,
 * a thread is counted in its group, or a new group in {@value #OTHER_GROUP}; the export says so once, and counts
 * each in {@link ExportSnapshot#seriesDropped()}.
 */
public final class ExportedThreads {
    public static final int MAX_GROUP_SERIES = 1024;
    public static final int MAX_THREAD_SERIES = 256;
    /** The group of threads whose own group came after {@link #MAX_GROUP_SERIES} others. */
    public static final String OTHER_GROUP = "(other)";
    /**
     * How long an ended thread's own series shows its final counts before it folds into its group's: longer than
     * the scrape interval most Prometheus servers use (15 s), so that each sees the final counts.
     */
    public static final long FOLD_AFTER_NANOS = 15_000_000_000L;

    private final ThreadPattern ownSeries;
    private final long foldAfterNanos;
    private final Consumer<String> notices;
    private final List<ExportedEvent> events = new ArrayList<>();
    private final Map<String, Integer> eventIndex = new HashMap<>();
    private final Map<String, String> eventByBaseName = new HashMap<>();
    private final Map<SeriesKey, SeriesTotals> series = new LinkedHashMap<>();
    private final Map<SampledThread, Member> members = new IdentityHashMap<>();
    /** The group series that hold running virtual threads' totals now. */
    private final List<SeriesTotals> virtualLive = new ArrayList<>();

    private final SeriesBound threadSeries = new SeriesBound(
            MAX_THREAD_SERIES,
            "exporting threads beyond "
                    + MAX_THREAD_SERIES
                    + " with series of their own (pinned, or named by export-threads) in their groups'"
                    + " series instead");
    private final SeriesBound groupSeries = new SeriesBound(
            MAX_GROUP_SERIES,
            "exporting thread groups beyond " + MAX_GROUP_SERIES + " in the group '" + OTHER_GROUP + "'");
    private int threadsEnrolled;
    private int threadsNotCounted;
    private long threadsFinished;
    private long seriesDropped;
    private volatile ExportSnapshot latest = ExportSnapshot.EMPTY;

    private record SeriesKey(String group, String thread, String cpus) {}

    /** A live thread's place in the export, worked out once. */
    private record Member(SeriesTotals series, int[] eventIndex) {}

    /** As below, with ended threads' series folded after {@link #FOLD_AFTER_NANOS}. */
    public ExportedThreads(ThreadPattern ownSeries, Consumer<String> notices) {
        this(ownSeries, FOLD_AFTER_NANOS, notices);
    }

    /**
     * @param ownSeries      threads whose names it matches have a series of their own, as pinned ones do; null for
     *                       none
     * @param foldAfterNanos how long an ended thread's own series stays before it folds into its group's; 0 folds it
     *                       at the tick after the one that published its final counts
     * @param notices        where the export says, once, that a bound was reached
     */
    public ExportedThreads(ThreadPattern ownSeries, long foldAfterNanos, Consumer<String> notices) {
        this.ownSeries = ownSeries;
        this.foldAfterNanos = foldAfterNanos;
        this.notices = Objects.requireNonNull(notices, "notices");
    }

    /**
     * Takes in the threads one tick read: the live ones' counts so far, the finished ones' for good; and folds the
     * series of threads that ended more than the grace period ago into their groups'.
     */
    public void update(List<? extends SampledThread> live, List<? extends SampledThread> finished) {
        long now = System.nanoTime();
        foldEnded(now);
        for (SeriesTotals totals : series.values()) {
            totals.clearLive();
        }
        int notCounted = 0;
        for (SampledThread thread : live) {
            if (!thread.isCounted()) {
                notCounted++;
                continue;
            }
            Member member = members.get(thread);
            if (member == null) {
                member = member(thread);
                members.put(thread, member);
                member.series.liveThreads++;
            }
            member.series.addLive(thread.counts(), member.eventIndex);
        }
        for (SampledThread thread : finished) {
            threadsFinished++;
            Member member = members.remove(thread);
            if (member != null) {
                member.series.liveThreads--;
            } else if (thread.isCounted()) {
                // seen first as it ended: its final counts still go where they would have while it lived
                member = member(thread);
            }
            if (member != null) {
                if (thread.isCounted()) {
                    member.series.fold(thread.counts(), member.eventIndex);
                }
                if (member.series.liveThreads == 0) {
                    member.series.endedNanos = now;
                }
            }
        }
        threadsEnrolled = live.size();
        threadsNotCounted = notCounted;
    }

    /**
     * A virtual thread's final counts, into its group's series only, never one of its own (100,000 virtual threads
     * would each be one, and a group holds what matters of them); on the tick's thread, between {@link #update} and
     * {@link #publish}.
     */
    public void addEndedVirtual(SampledThread thread) {
        addEndedVirtual(ThreadGroupName.of(thread.name()), thread.events(), thread.counts(), 1);
    }

    /**
     * {@code members} virtual threads of {@code group} that ended, {@code counts} their final counts summed, into the
     * group's series, as {@link #addEndedVirtual(SampledThread)} adds one.
     */
    public void addEndedVirtual(String group, EventList events, CounterSnapshot counts, int members) {
        List<EventSpec> specs = events.events();
        int[] index = new int[specs.size()];
        for (int i = 0; i < index.length; i++) {
            index[i] = eventIndex(specs.get(i));
        }
        groupOf(group).fold(counts, index);
        threadsFinished += members;
    }

    /**
     * The running members of groups of virtual threads, their totals so far, into their groups' series, in place of
     * those the last call gave (a group not given has none running now); on the tick's thread, between
     * {@link #update} and {@link #publish}. A member's counts move to {@link #addEndedVirtual} at its end: the group's
     * series counts it all along, and never goes down.
     */
    public void runningVirtual(List<RunningVirtualGroup> groups) {
        for (SeriesTotals g : virtualLive) {
            g.clearVirtualLive();
        }
        virtualLive.clear();
        for (RunningVirtualGroup group : groups) {
            List<EventSpec> specs = group.events().events();
            int[] index = new int[specs.size()];
            for (int i = 0; i < index.length; i++) {
                index[i] = eventIndex(specs.get(i));
            }
            SeriesTotals series = groupOf(group.group());
            series.addVirtualLive(group.counts(), index); // added: past the bound, groups share (other)'s
            virtualLive.add(series);
        }
    }

    /**
     * Gives up the own series whose threads all ended at least the grace period ago, before this tick's threads
     * are taken in: the tick that ended them has published their final counts, so with no grace at all each
     * series still shows them once.
     */
    private void foldEnded(long now) {
        List<SeriesTotals> ended = new ArrayList<>();
        for (Iterator<SeriesTotals> it = series.values().iterator(); it.hasNext(); ) {
            SeriesTotals own = it.next();
            if (own.thread != null && own.liveThreads == 0 && now - own.endedNanos >= foldAfterNanos) {
                it.remove();
                threadSeries.count--;
                ended.add(own);
            }
        }
        for (SeriesTotals own : ended) {
            groupOf(own.group).absorb(own);
        }
    }

    /** Publishes what the last {@link #update} took in, as of {@code epochMillis}. */
    public void publish(long epochMillis, double samplerSeconds) {
        List<ExportSnapshot.Series> published = new ArrayList<>(series.size());
        for (SeriesTotals totals : series.values()) {
            ExportSnapshot.Series one = totals.publish(events);
            if (one != null) {
                published.add(one);
            }
        }
        latest = new ExportSnapshot(
                epochMillis,
                events,
                published,
                threadsEnrolled,
                threadsNotCounted,
                threadsFinished,
                seriesDropped,
                samplerSeconds);
    }

    /** The last published snapshot; any thread may read it. */
    public ExportSnapshot snapshot() {
        return latest;
    }

    private Member member(SampledThread thread) {
        List<EventSpec> specs = thread.events().events();
        int[] index = new int[specs.size()];
        for (int i = 0; i < index.length; i++) {
            index[i] = eventIndex(specs.get(i));
        }
        return new Member(seriesOf(thread), index);
    }

    /** The export's index of an event, added on first sight; -1 for one whose name another event's already took. */
    private int eventIndex(EventSpec spec) {
        String name = spec.name();
        Integer known = eventIndex.get(name);
        if (known != null) {
            return known;
        }
        ExportedEvent event = ExportedEvent.of(spec);
        String taken = eventByBaseName.putIfAbsent(event.baseName(), name);
        if (taken != null) {
            notices.accept("not exporting " + name + ": its metric name (" + event.baseName() + ") is that of " + taken
                    + ", exported already");
            eventIndex.put(name, -1);
            return -1;
        }
        events.add(event);
        eventIndex.put(name, events.size() - 1);
        for (SeriesTotals totals : series.values()) {
            totals.ensureEvents(events.size());
        }
        return events.size() - 1;
    }

    private SeriesTotals seriesOf(SampledThread thread) {
        String group = ThreadGroupName.of(thread.name());
        if (thread.pinned() || ownSeries != null && ownSeries.matches(thread.name())) {
            SeriesTotals own = threadSeries.within(
                    new SeriesKey(ThreadGroupName.label(group), ThreadGroupName.label(thread.name()), thread.cpus()));
            if (own != null) {
                return own;
            }
        }
        return groupOf(group);
    }

    /** The group's series ({@link ThreadGroupName#label}), or {@value #OTHER_GROUP}'s past the bound on groups. */
    private SeriesTotals groupOf(String group) {
        SeriesTotals grouped = groupSeries.within(new SeriesKey(ThreadGroupName.label(group), null, null));
        return grouped != null
                ? grouped
                : series.computeIfAbsent(new SeriesKey(OTHER_GROUP, null, null), this::newSeries);
    }

    /**
     * A kind of series and its bound on how many there are at once, which it says once when a new series of that
     * kind would pass it, and counts each time.
     */
    private final class SeriesBound {
        private final int max;
        private final String beyond;
        private int count;
        private boolean said;

        SeriesBound(int max, String beyond) {
            this.max = max;
            this.beyond = beyond;
        }

        /** The series of that key, added while within the bound; null past it. */
        SeriesTotals within(SeriesKey key) {
            SeriesTotals totals = series.get(key);
            if (totals != null) {
                return totals;
            }
            if (count < max) {
                count++;
                totals = newSeries(key);
                series.put(key, totals);
                return totals;
            }
            seriesDropped++;
            if (!said) {
                said = true;
                notices.accept(beyond);
            }
            return null;
        }
    }

    private SeriesTotals newSeries(SeriesKey key) {
        SeriesTotals totals = new SeriesTotals(key.group(), key.thread(), key.cpus());
        totals.ensureEvents(events.size());
        return totals;
    }
}
