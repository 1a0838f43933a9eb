package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.options.DescriptorShare;
import io.perfpin.report.Recording;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.StatsSnapshot;
import io.perfpin.testkit.PerfEventDescriptors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A registry keeps to its share of the file descriptors: threads beyond it are enrolled not counted. */
class DescriptorBudgetTest {
    /** Two events a thread: budget for the recording, the two held switched on, and three threads. */
    private static final String EVENTS = "page-faults,task-clock";

    private static final int BUDGET = 1 + 2 + 3 * 2;
    private static final long DEADLINE_NANOS = 20_000_000_000L;

    @TempDir
    Path dir;

    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final List<Parked> parked = new ArrayList<>();

    @Test
    void threadsBeyondTheBudgetAreNotCountedAndHoldNoDescriptorUntilCountedThreadsGiveTheirsBack() throws Exception {
        long before = PerfEventDescriptors.ofThisProcess();
        Path statsFile = dir.resolve("budget.stats");
        Path recording = dir.resolve("budget.jsonl");
        ThreadRegistry registry = ThreadRegistry.start(
                Backends.syscalls(),
                RegistryConfig.of(EventList.parse(EVENTS, new EventParser()))
                        .withInterval(20_000_000L)
                        .withStatsFile(statsFile)
                        .withJsonLines(recording)
                        .withDescriptors(DescriptorShare.parse("fds=" + BUDGET, Integer.toString(BUDGET))),
                notice -> warnings.add(notice.text()));
        try {
            long ownHeld = PerfEventDescriptors.ofThisProcess() - before;
            assertEquals(2, ownHeld, "one event of each software kind held switched on");
            for (int i = 0; i < 5; i++) {
                parked.add(Parked.enrolled(registry, "budgeted-" + i)); // one after the other: the first three fit
            }
            assertEquals(
                    before + ownHeld + 3 * 2,
                    PerfEventDescriptors.ofThisProcess(),
                    "three threads counted, two threads beyond the budget hold nothing");
            assertEquals(BUDGET, registry.descriptors().held(), "the recording, the two held and three threads'");

            StatsFileReader reader = StatsFileReader.open(statsFile);
            await(() -> snapshot(reader).threadsNotCounted() == 2, "the stats file counts the two threads not counted");
            assertEquals(BUDGET, reader.snapshot().descriptorBudget());
            assertEquals(3, liveSlots(reader), "only counted threads are shown live");

            parked.get(0).end();
            await(() -> registry.descriptors().held() == BUDGET - 2, "the ended thread's descriptors are given back");
            assertEquals(before + ownHeld + 2 * 2, PerfEventDescriptors.ofThisProcess());
            parked.add(Parked.enrolled(registry, "budgeted-5"));
            assertEquals(before + ownHeld + 3 * 2, PerfEventDescriptors.ofThisProcess(), "a later thread is counted");
        } finally {
            parked.forEach(Parked::end);
            registry.close();
        }
        assertEquals(before, PerfEventDescriptors.ofThisProcess(), "every descriptor closed");
        assertEquals(0, registry.descriptors().held(), "and given back");

        List<ThreadRecord> records = Recording.read(recording).threads();
        for (int i = 0; i < 6; i++) {
            ThreadReport report = finalRecord(records, "budgeted-" + i);
            boolean counted = i != 3 && i != 4;
            assertEquals(counted, report.counters().containsKey("page-faults"), report.toString());
            String notCounted = report.unsupported().getOrDefault("page-faults", "");
            assertEquals(
                    !counted,
                    notCounted.startsWith("thread not counted: perfpin's share of this process's file"
                            + " descriptors (" + BUDGET + ", fds=" + BUDGET + " of the "),
                    notCounted);
        }
        assertEquals(2, StatsFileReader.open(statsFile).snapshot().threadsNotCounted());
        assertEquals(1, warnings.size(), "said once: " + warnings);
        assertTrue(
                warnings.get(0)
                        .startsWith(
                                "not counting threads while no file descriptor is left for them:" + " perfpin's share"),
                warnings.get(0));
    }

    private static ThreadReport finalRecord(List<ThreadRecord> records, String name) {
        return records.stream()
                .filter(r -> r.isFinal() && r.report().name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no final record of " + name))
                .report();
    }

    private static int liveSlots(StatsFileReader reader) throws IOException {
        return (int) reader.snapshot().threads().stream()
                .filter(t -> t.state() == StatsLayout.STATE_RUNNING)
                .count();
    }

    private static StatsSnapshot snapshot(StatsFileReader reader) {
        try {
            return reader.snapshot();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("never happened: " + what);
            }
            Thread.sleep(5);
        }
    }

    /** A thread that enrols itself, then waits until the test ends it. */
    private static final class Parked {
        private final Thread thread;
        private final CountDownLatch end = new CountDownLatch(1);

        private Parked(ThreadRegistry registry, String name, CountDownLatch enrolled) {
            thread = new Thread(
                    () -> {
                        try {
                            registry.enrolCurrentThread(null, null);
                            enrolled.countDown();
                            end.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            registry.threadEnded(Thread.currentThread());
                        }
                    },
                    name);
        }

        static Parked enrolled(ThreadRegistry registry, String name) throws InterruptedException {
            CountDownLatch enrolled = new CountDownLatch(1);
            Parked parked = new Parked(registry, name, enrolled);
            parked.thread.start();
            if (!enrolled.await(DEADLINE_NANOS, TimeUnit.NANOSECONDS)) {
                throw new AssertionError(name + " did not enrol");
            }
            return parked;
        }

        void end() {
            end.countDown();
            try {
                thread.join(DEADLINE_NANOS / 1_000_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
