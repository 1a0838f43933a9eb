package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.report.EndRecord;
import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.testkit.PerfEventDescriptors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A recording whose device fills up at one write or another ({@link FullDevice}), with real threads counted and
 * pinned to CPU 1, half of them ended before the registry closes and half still running. Whichever write fails, the
 * registry's promises hold: every perf_event descriptor is closed, every running thread has the affinity it had
 * before, the failure is said once, and the recording holds whole records only, its last saying it is incomplete.
 */
class RecordingFaultTest {
    private static final long DEADLINE_SECONDS = 20;
    private static final int THREADS = 6;
    /** An interval no test waits for: the only ticks are the last one, at close. */
    private static final long NO_TICKS = TimeUnit.HOURS.toNanos(1);

    private static final long TICKS = TimeUnit.MILLISECONDS.toNanos(10);

    @TempDir
    Path dir;

    private final ThreadAffinity affinity = ThreadAffinity.system();

    /**
     * Without ticks the writes are known: 0 the JVM record (as the registry starts), 1 the last pass (every final
     * record), 2 the end record, 3 none. With a tick every 10 ms, writes 1 on are flushes of live samples.
     */
    static Stream<Arguments> failingWrites() {
        return Stream.concat(
                IntStream.rangeClosed(0, 3).mapToObj(n -> Arguments.of(n, NO_TICKS)),
                IntStream.rangeClosed(1, 4).mapToObj(n -> Arguments.of(n, TICKS)));
    }

    @ParameterizedTest(name = "write {0} fails, interval {1} ns")
    @MethodSource("failingWrites")
    void whicheverWriteFailsNothingIsLeftOpenOrPinnedAndTheRecordingSaysItIsIncomplete(int failing, long interval)
            throws Exception {
        assumeTrue(affinity.get(0).contains(0) && affinity.get(0).contains(1), "needs CPUs 0 and 1");
        long perfBefore = PerfEventDescriptors.ofThisProcess();
        Path recording = dir.resolve("run.jsonl");
        Path stats = dir.resolve("run.stats");
        List<AgentNotice> notices = new CopyOnWriteArrayList<>();
        FullDevice[] device = new FullDevice[1];
        ThreadRegistry registry;
        try {
            registry = ThreadRegistry.start(
                    Backends.syscalls(),
                    RegistryConfig.of(EventList.parse("task-clock,page-faults,context-switches", new EventParser()))
                            .withInterval(interval)
                            .withStatsFile(stats)
                            .withJsonLines(recording),
                    notices::add,
                    (named, pid, epochMillis) -> {
                        device[0] = FullDevice.create(named, failing);
                        return RecordingFile.begin(device[0], named, named, pid, epochMillis);
                    });
        } catch (IOException e) {
            assertEquals(0, failing, "only the JVM record is written as the registry starts: " + e);
            assertTrue(e.getMessage().startsWith("cannot write the recording: "), e.getMessage());
            assertEquals(perfBefore, PerfEventDescriptors.ofThisProcess(), "nothing was opened");
            return;
        }

        CountDownLatch enrolled = new CountDownLatch(THREADS);
        CountDownLatch release = new CountDownLatch(1);
        int[] tids = new int[THREADS];
        CpuSet[] before = new CpuSet[THREADS];
        List<Thread> workers = new ArrayList<>();
        try {
            for (int i = 0; i < THREADS; i++) {
                int index = i;
                Thread worker = new Thread(
                        () -> {
                            tids[index] = affinity.currentTid();
                            before[index] = affinity.get(tids[index]);
                            registry.enrolCurrentThread(null, Placement.parse("1"));
                            enrolled.countDown();
                            if (index % 2 == 0) {
                                registry.threadEnded(Thread.currentThread());
                                return;
                            }
                            await(release);
                        },
                        "worker-" + i);
                worker.start();
                workers.add(worker);
            }
            assertTrue(enrolled.await(DEADLINE_SECONDS, TimeUnit.SECONDS), "enrolled within the deadline");
            for (int i = 1; i < THREADS; i += 2) {
                assertEquals(CpuSet.of(1), affinity.get(tids[i]), "pinned while counted");
            }
            if (interval == TICKS) {
                awaitFull(device[0]);
            }
            registry.close();

            assertEquals(perfBefore, PerfEventDescriptors.ofThisProcess(), "every perf_event descriptor is closed");
            for (int i = 1; i < THREADS; i += 2) {
                assertEquals(before[i], affinity.get(tids[i]), "worker-" + i + " has its affinity back");
            }
        } finally {
            release.countDown();
            for (Thread worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            }
            registry.close();
        }

        boolean full = device[0].full();
        assertEquals(
                failing < 3 || interval == TICKS,
                full,
                "the device filled at write " + failing + " of " + device[0].writes());
        List<String> said = notices.stream()
                .map(AgentNotice::text)
                .filter(t -> t.startsWith("the recording "))
                .collect(Collectors.toList());
        assertEquals(full ? 1 : 0, said.size(), "the failure is said once: " + said);
        if (full) {
            assertTrue(
                    said.get(0)
                            .contains("stopped: writing it failed: No space left on device; it ends there,"
                                    + " marked incomplete; counting goes on"),
                    said.get(0));
        }

        Recording read = Recording.read(recording);
        assertFalse(read.warning().isPresent(), "whole records only: " + read.warning());
        List<String> lines = Files.readAllLines(recording);
        assertTrue(lines.get(lines.size() - 1).startsWith("{\"type\":\"end\""), "the end record is last");
        EndRecord end = read.end().orElseThrow();
        assertEquals(!full, end.complete(), lines.get(lines.size() - 1));
        if (full) {
            assertEquals("writing it failed: No space left on device", end.reason());
        } else {
            assertEquals(THREADS, read.threads().size(), "a final record per thread");
            assertTrue(read.threads().stream().allMatch(t -> t.isFinal()), "every record kept is a final one");
        }
        try (StatsFileReader reader = StatsFileReader.open(stats)) {
            assertTrue(reader.isClosed(), "the stats file is marked closed whatever the recording did");
        }
    }

    private static void awaitFull(FullDevice device) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        while (!device.full()) {
            assertTrue(
                    System.nanoTime() < deadline,
                    "the device filled within the deadline, after " + device.writes() + " writes");
            Thread.sleep(5);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("not released within " + DEADLINE_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
