package io.perfpin.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.PageToucher;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.CounterSnapshots;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.options.ThreadPatterns;
import io.perfpin.registry.RegistryConfig;
import io.perfpin.registry.RunningVirtualGroup;
import io.perfpin.registry.SampledThread;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.testkit.Threads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The export's series from a real registry counting real threads: what each series shows is exactly what its
 * threads' final records say, live threads are in it as they count, and the bounds on series hold.
 */
class ExportedThreadsTest {
    /** A final record's name and page faults (its counters come before its coverage). */
    private static final Pattern RECORD =
            Pattern.compile("\"type\":\"thread\".*?\"name\":\"([^\"]*)\".*?\"page-faults\":(\\d+)");

    /** More than {@link ExportedThreads#MAX_THREAD_SERIES}, as if ended threads kept theirs. */
    private static final int CHURNED = ExportedThreads.MAX_THREAD_SERIES + 44;

    @TempDir
    Path dir;

    private final List<String> notices = new CopyOnWriteArrayList<>();

    private ThreadRegistry start(Path recording, ExportedThreads export) throws IOException {
        ThreadRegistry registry = ThreadRegistry.start(
                Backends.syscalls(),
                RegistryConfig.of(EventList.parse("page-faults", new EventParser()))
                        .withInterval(20_000_000L)
                        .withJsonLines(recording),
                notice -> {});
        registry.onTick(new ThreadRegistry.TickListener() {
            @Override
            public void threadsRead(List<? extends SampledThread> live, List<? extends SampledThread> finished) {
                export.update(live, finished);
            }

            @Override
            public void afterTick(long epochMillis, boolean finalPass, Consumer<String> record) {
                export.publish(epochMillis, Double.NaN);
            }
        });
        return registry;
    }

    @Test
    void aGroupSumsItsThreadsAndPinnedOrNamedThreadsHaveSeriesOfTheirOwn() throws Exception {
        assumeTrue(ThreadAffinity.system().get(0).contains(1), "needs CPU 1");
        Path recording = dir.resolve("run.jsonl");
        ExportedThreads export =
                new ExportedThreads(ThreadPatterns.compile("test", "feed-.*", "feed-.*"), notices::add);
        ThreadRegistry registry = start(recording, export);
        CountDownLatch end = new CountDownLatch(1);
        Thread feed = counted(registry, "feed-1", null, 2048, end);
        Thread pinned = counted(registry, "pinned-1", Placement.parse("1"), 2048, end);
        List<Thread> pool = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Thread worker = counted(registry, "pool-7-thread-" + i, null, 32, new CountDownLatch(0));
            Threads.join(worker);
            pool.add(worker);
        }
        try {
            // live: each thread of its own is in its series as it counts, after it touched its pages
            ExportSnapshot.Series live = awaitSeries(export, "feed-1", 2048);
            assertEquals("feed", live.group());
            assertWithin(2048, live.total(0), 0.03, "feed-1's page faults while it lives");
            assertWithin(2048, awaitSeries(export, "pinned-1", 2048).total(0), 0.03, "pinned-1's page faults");
        } finally {
            end.countDown();
            Threads.join(feed);
            Threads.join(pinned);
            registry.close();
        }
        ExportSnapshot last = export.snapshot();
        assertEquals(3, last.series().size(), "the pool's group, and two threads of their own");
        assertEquals(
                recorded(recording, "pool-7-thread-\\d+"),
                series(last, "pool-7-thread", null).total(0),
                "the pool's series is the sum of its threads' final records");
        ExportSnapshot.Series ownFeed = series(last, "feed", "feed-1");
        assertEquals(recorded(recording, "feed-1"), ownFeed.total(0), "feed-1's series is its final record");
        ExportSnapshot.Series ownPin = series(last, "pinned", "pinned-1");
        assertEquals("1", ownPin.cpus());
        assertEquals(recorded(recording, "pinned-1"), ownPin.total(0), "pinned-1's series is its final record");
        assertTrue(Double.isNaN(ownPin.coverage(0)), "page-faults is never multiplexed: no coverage to export");
        assertEquals(22, last.threadsFinished());
        assertEquals(0, last.threadsEnrolled());
        assertEquals(List.of(), notices);
    }

    @Test
    void endedThreadsSeriesFoldIntoTheirGroupsAndTheGroupHoldsTheirFinalRecords() throws Exception {
        Path recording = dir.resolve("churn.jsonl");
        // no grace: each ended thread's series shows its final counts at one tick, and folds at the next
        ExportedThreads export =
                new ExportedThreads(ThreadPatterns.compile("test", "churn-.*", "churn-.*"), 0, notices::add);
        ThreadRegistry registry = start(recording, export);
        CountDownLatch end = new CountDownLatch(1);
        Thread live = null;
        try {
            live = counted(registry, "churn-" + CHURNED, null, 8, end);
            for (int i = 0; i < CHURNED; i++) {
                Threads.join(counted(registry, "churn-" + i, null, 8, new CountDownLatch(0)));
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (ownSeries(export.snapshot()).size() != 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            ExportSnapshot churned = export.snapshot();
            assertEquals(
                    List.of("churn-" + CHURNED),
                    ownSeries(churned),
                    "of " + (CHURNED + 1) + " threads with series of their own, only the live one keeps its own");
            assertEquals(2, churned.series().size(), "the group's series and the live thread's");
        } finally {
            end.countDown();
            if (live != null) {
                Threads.join(live);
            }
            registry.close();
        }
        ExportSnapshot last = export.snapshot();
        assertEquals(
                recorded(recording, "churn-\\d+", "churn-" + CHURNED),
                series(last, "churn", null).total(0),
                "the group's series is the sum of the ended threads' final records");
        assertEquals(
                recorded(recording, "churn-" + CHURNED),
                series(last, "churn", "churn-" + CHURNED).total(0),
                "the thread that ended last shows its final record in its own series, at the tick it ended");
        assertEquals(0, last.seriesDropped(), "no bound was reached: ended threads gave their series up");
        assertEquals(List.of(), notices);
    }

    @Test
    void pastTheBoundsThreadsFoldIntoGroupsAndGroupsIntoOtherAndNoCountIsLost() throws Exception {
        Path recording = dir.resolve("many.jsonl");
        // no thread's series folds, whatever the test's pace: the bound on series at once is reached
        ExportedThreads export =
                new ExportedThreads(ThreadPatterns.compile("test", "own.*", "own.*"), Long.MAX_VALUE, notices::add);
        ThreadRegistry registry = start(recording, export);
        try {
            for (int i = 0; i < ExportedThreads.MAX_GROUP_SERIES + 60; i++) {
                Threads.join(counted(registry, "grp" + letters(i), null, 1, new CountDownLatch(0)));
            }
            for (int i = 0; i < ExportedThreads.MAX_THREAD_SERIES + 40; i++) {
                Threads.join(counted(registry, "own" + letters(i), null, 1, new CountDownLatch(0)));
            }
        } finally {
            registry.close();
        }
        ExportSnapshot last = export.snapshot();
        long own = last.series().stream().filter(s -> s.thread() != null).count();
        long groups = last.series().stream().filter(s -> s.thread() == null).count();
        assertEquals(ExportedThreads.MAX_THREAD_SERIES, own);
        assertEquals(ExportedThreads.MAX_GROUP_SERIES + 1, groups, "the bound, and " + ExportedThreads.OTHER_GROUP);
        double sum = last.series().stream().mapToDouble(s -> s.total(0)).sum();
        assertEquals(recorded(recording, ".*"), sum, "every thread's final count is in one series");
        assertEquals(2, notices.size(), notices.toString());
        assertEquals(
                60 + 40 + 40,
                last.seriesDropped(),
                "60 groups in " + ExportedThreads.OTHER_GROUP + ", 40 threads in their groups, and those 40 groups in "
                        + ExportedThreads.OTHER_GROUP);
    }

    /** A thread enrolled with page-faults that touches {@code pages} pages, then waits for {@code end}. */
    /**
     * Names that differ only in half a character (a lone surrogate, which UTF-8 cannot carry) are one series, labelled
     * with U+FFFD and summing them, as Prometheus would keep one of two series whose labels were written alike; a name
     * with a real {@code ?} keeps its own.
     */
    @Test
    void namesAlikeOnceWrittenInUtf8ShareOneSeriesThatSumsThem() throws Exception {
        Path recording = dir.resolve("alike.jsonl");
        ExportedThreads export =
                new ExportedThreads(ThreadPatterns.compile("test", "s.*", "s.*"), Long.MAX_VALUE, notices::add);
        ThreadRegistry registry = start(recording, export);
        try {
            Threads.join(counted(registry, "s\uD800", null, 64, new CountDownLatch(0)));
            Threads.join(counted(registry, "s\uD801", null, 128, new CountDownLatch(0)));
            Threads.join(counted(registry, "s?", null, 32, new CountDownLatch(0)));
        } finally {
            registry.close();
        }
        ExportSnapshot last = export.snapshot();
        assertEquals(2, last.series().size(), "one series for the two names alike in UTF-8, one for s?");
        assertEquals(
                recorded(recording, "s\\\\ud80[01]"),
                series(last, "s\uFFFD", "s\uFFFD").total(0),
                "the shared series is the sum of both threads' final records");
        assertEquals(recorded(recording, "s\\?"), series(last, "s?", "s?").total(0));
        assertEquals(List.of(), notices);
    }

    /**
     * A group of virtual threads counts its running members' totals so far, and a member's final counts in their place
     * at its end: its series only grows, also where a member ended between two ticks and is in neither sum for one.
     */
    @Test
    void aVirtualGroupCountsItsRunningMembersAndNeverGoesDown() {
        ExportedThreads export = new ExportedThreads(null, notice -> {});
        EventList events = EventList.parse("page-faults", new EventParser());
        export.runningVirtual(
                List.of(new RunningVirtualGroup("vt", 2, events, CounterSnapshots.of(new long[] {300}, 9, 9))));
        export.publish(1, 0);
        assertEquals(300, series(export.snapshot(), "vt", null).total(0), "the running members' totals so far");

        export.runningVirtual(
                List.of(new RunningVirtualGroup("vt", 1, events, CounterSnapshots.of(new long[] {100}, 9, 9))));
        export.publish(2, 0);
        assertEquals(300, series(export.snapshot(), "vt", null).total(0), "one ended, not yet given: held");

        export.addEndedVirtual(ended("vt-1", events, 250));
        export.runningVirtual(
                List.of(new RunningVirtualGroup("vt", 1, events, CounterSnapshots.of(new long[] {100}, 9, 9))));
        export.publish(3, 0);
        assertEquals(350, series(export.snapshot(), "vt", null).total(0), "its final counts, and the other's");
        export.addEndedVirtual(ended("vt-2", events, 120));
        export.runningVirtual(List.of());
        export.publish(4, 0);
        assertEquals(370, series(export.snapshot(), "vt", null).total(0), "both final counts");
    }

    /** A virtual thread that ended with {@code raw} of the one event. */
    private static SampledThread ended(String name, EventList events, long raw) {
        return new SampledThread() {
            @Override
            public Thread thread() {
                return Thread.currentThread();
            }

            @Override
            public String name() {
                return name;
            }

            @Override
            public int tid() {
                return -1;
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
                return CounterSnapshots.of(new long[] {raw}, 9, 9);
            }

            @Override
            public long enrolledNanos() {
                return 0;
            }
        };
    }

    private static Thread counted(
            ThreadRegistry registry, String name, Placement placement, int pages, CountDownLatch end)
            throws InterruptedException {
        CountDownLatch touched = new CountDownLatch(1);
        Thread thread = new Thread(
                () -> {
                    registry.enrolCurrentThread(null, placement);
                    try {
                        PageToucher.touch((long) pages * PageToucher.PAGE_SIZE);
                        touched.countDown();
                        end.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        registry.threadEnded(Thread.currentThread());
                    }
                },
                name);
        thread.start();
        Threads.await(touched);
        return thread;
    }

    private static ExportSnapshot.Series awaitSeries(ExportedThreads export, String thread, int pages)
            throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (ExportSnapshot.Series s : export.snapshot().series()) {
                if (thread.equals(s.thread()) && s.total(0) >= pages * 0.97) {
                    return s;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no series of " + thread + " with " + pages + " page faults");
    }

    private static ExportSnapshot.Series series(ExportSnapshot snapshot, String group, String thread) {
        return snapshot.series().stream()
                .filter(s -> s.group().equals(group) && Objects.equals(s.thread(), thread))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no series " + group + "/" + thread));
    }

    /** The names of the threads with series of their own. */
    private static List<String> ownSeries(ExportSnapshot snapshot) {
        return snapshot.series().stream()
                .map(ExportSnapshot.Series::thread)
                .filter(Objects::nonNull)
                .toList();
    }

    /** The sum of the page faults of the final records of the threads whose names match, but for {@code except}. */
    private static double recorded(Path recording, String names) throws IOException {
        return recorded(recording, names, null);
    }

    private static double recorded(Path recording, String names, String except) throws IOException {
        long sum = 0;
        int records = 0;
        for (String line : Files.readAllLines(recording)) {
            Matcher m = RECORD.matcher(line);
            if (m.find() && m.group(1).matches(names) && !m.group(1).equals(except)) {
                sum += Long.parseLong(m.group(2));
                records++;
            }
        }
        assertTrue(records > 0, "final records of " + names);
        return sum;
    }

    /** A name without digits for {@code i}: a, b, ..., z, ba, bb, ... */
    private static String letters(int i) {
        StringBuilder s = new StringBuilder();
        do {
            s.insert(0, (char) ('a' + i % 26));
            i /= 26;
        } while (i > 0);
        return s.toString();
    }

    private static void assertWithin(double expected, double actual, double fraction, String what) {
        assertTrue(
                Math.abs(actual - expected) <= expected * fraction,
                what + ": " + actual + " is not within " + (fraction * 100) + "% of " + expected);
    }
}
