package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.report.Recording;
import io.perfpin.stats.StatsClosing;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.testkit.PerfEventDescriptors;
import io.perfpin.testkit.Threads;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a registry happens once, whoever asks: the agent's shutdown hook and a detach can both call it at the
 * same moment, and threads may still be enrolling while it closes.
 */
class RegistryCloseTest {
    private static final long DEADLINE_SECONDS = 20;

    @TempDir
    Path dir;

    private final List<String> warnings = new CopyOnWriteArrayList<>();

    private ThreadRegistry start(Path recording) throws IOException {
        return ThreadRegistry.start(
                Backends.syscalls(),
                RegistryConfig.of(EventList.parse("page-faults,task-clock", new EventParser()))
                        .withInterval(10_000_000L)
                        .withStatsFile(dir.resolve("close.stats"))
                        .withJsonLines(recording),
                notice -> warnings.add(notice.text()));
    }

    /**
     * Two threads close at once: each returns only once every final record is written, each thread has exactly
     * one, every descriptor is closed and given back once, and a descriptor the process opened after the first
     * close is left alone by a later one.
     */
    @Test
    void closingFromTwoThreadsAtOnceFinishesEveryThreadOnceAndNeitherReturnsEarly() throws Exception {
        long perfBefore = PerfEventDescriptors.ofThisProcess();
        Path recording = dir.resolve("close.jsonl");
        ThreadRegistry registry = start(recording);
        CountDownLatch enrolled = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (String name : List.of("parked", "ended")) {
            Thread worker = new Thread(
                    () -> {
                        registry.enrolCurrentThread(null, null);
                        enrolled.countDown();
                        if (name.equals("ended")) {
                            registry.threadEnded(Thread.currentThread());
                            return;
                        }
                        await(release);
                    },
                    name);
            worker.start();
            workers.add(worker);
        }
        CountDownLatch go = new CountDownLatch(1);
        List<Long> finalRecordsSeen = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> closers = new ArrayList<>();
        try {
            assertTrue(enrolled.await(DEADLINE_SECONDS, TimeUnit.SECONDS));
            for (String name : List.of("shutdown-hook", "detach")) {
                Thread closer = new Thread(
                        () -> {
                            try {
                                await(go);
                                registry.close();
                                finalRecordsSeen.add(finalRecords(recording));
                            } catch (Throwable e) {
                                failures.add(e);
                            }
                        },
                        name);
                closer.start();
                closers.add(closer);
            }
            go.countDown();
            for (Thread closer : closers) {
                closer.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
                assertTrue(!closer.isAlive(), closer.getName() + " returned from close()");
            }
        } finally {
            go.countDown();
            release.countDown();
            for (Thread worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            }
            registry.close();
        }
        assertEquals(List.of(), failures);
        assertEquals(List.of(2L, 2L), finalRecordsSeen, "both callers return with both final records written");
        assertEquals(2, finalRecords(recording), "one final record per thread, not one per call");
        assertEquals(0, registry.descriptors().held(), "every descriptor given back to the budget once");
        assertEquals(perfBefore, PerfEventDescriptors.ofThisProcess(), "every perf_event descriptor closed");
        try (StatsFileReader reader = StatsFileReader.open(dir.resolve("close.stats"))) {
            assertTrue(reader.isClosed(), "the stats file is marked closed");
        }

        // The numbers closed are free again: a file opened now likely takes one of them, and stays open.
        Path other = dir.resolve("opened-after");
        try (FileChannel channel = FileChannel.open(other, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            registry.close();
            assertEquals(4, channel.write(ByteBuffer.wrap(new byte[] {'k', 'e', 'p', 't'})));
        }
        assertEquals("kept", Files.readString(other));
        assertEquals(List.of(), warnings);
    }

    /**
     * Threads start and enrol without pause while the registry closes: every enrolment that succeeded has its final
     * record, and none leaves a descriptor open after close() returned.
     */
    @Test
    void threadsEnrollingWhileTheRegistryClosesLeaveNoDescriptorBehind() throws Exception {
        long perfBefore = PerfEventDescriptors.ofThisProcess();
        Path recording = dir.resolve("racing.jsonl");
        ThreadRegistry registry = start(recording);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger counted = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        List<Thread> spawners = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            Thread spawner = new Thread(
                    () -> {
                        while (!stop.get()) {
                            Thread t = new Thread(
                                    () -> {
                                        if (registry.enrolCurrentThread(null, null)) {
                                            counted.incrementAndGet();
                                            registry.threadEnded(Thread.currentThread());
                                        }
                                    },
                                    "racer-" + started.incrementAndGet());
                            t.start();
                            try {
                                Threads.join(t);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "spawner-" + s);
            spawner.start();
            spawners.add(spawner);
        }
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
            while (counted.get() < 50 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            registry.close();
            assertEquals(perfBefore, PerfEventDescriptors.ofThisProcess(), "no descriptor left once close() returned");
        } finally {
            stop.set(true);
            for (Thread spawner : spawners) {
                spawner.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            }
            registry.close();
        }
        assertTrue(counted.get() >= 50, counted.get() + " threads counted before closing");
        assertEquals(counted.get(), finalRecords(recording), "a final record for each thread counted");
        assertEquals(0, registry.descriptors().held());
        assertEquals(perfBefore, PerfEventDescriptors.ofThisProcess());
    }

    private static long finalRecords(Path recording) throws IOException {
        AtomicInteger finals = new AtomicInteger();
        Recording.read(recording, record -> finals.addAndGet(record.isFinal() ? 1 : 0));
        return finals.get();
    }

    /**
     * At the JVM's exit, a sampler that does not come back from its tick holds the exit only as long as the bound: a
     * listener that does not return stands in for a write to a file system that does not answer. The close returns
     * false and says why the final records are missing. A detach after it waits for the sampler, as any detach does,
     * and closes what the exit left: the sampler's last tick comes once its tick returns.
     */
    @Test
    void anExitWaitsForASamplerStuckInItsTickOnlyUntilTheBound() throws Exception {
        Path recording = dir.resolve("stuck.jsonl");
        ThreadRegistry registry = start(recording);
        CountDownLatch inTick = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> sampler = new AtomicReference<>();
        List<Boolean> passes = new CopyOnWriteArrayList<>();
        registry.onTick((epochMillis, finalPass, record) -> {
            passes.add(finalPass);
            if (sampler.compareAndSet(null, Thread.currentThread())) {
                inTick.countDown();
                await(release);
            }
        });
        try {
            assertTrue(inTick.await(DEADLINE_SECONDS, TimeUnit.SECONDS), "the sampler ticked");
            assertTrue(registry.publishesNotices(), "viewers read notices in the stats file");
            assertFalse(registry.close(TimeUnit.MILLISECONDS.toNanos(100), StatsClosing.AT_EXIT), "the exit gave up");
            // the sampler writes the stats file's notices: this one goes to stderr, quiet or not
            assertFalse(registry.publishesNotices());
            assertEquals(1, warnings.size(), warnings::toString);
            assertTrue(
                    warnings.get(0).contains("the sampler has not come back from its tick in 100 ms")
                            && warnings.get(0).contains("without the final records"),
                    warnings::toString);
            assertTrue(sampler.get().isAlive(), "the sampler was still in its tick");
            assertEquals(List.of(false), passes, "no last tick yet");
        } finally {
            release.countDown();
        }
        registry.close();
        assertFalse(sampler.get().isAlive(), "the detach waited for the sampler");
        assertEquals(List.of(false, true), passes, "the sampler's last tick came as it stopped");
        assertEquals(1, warnings.size(), "nothing else failed: " + warnings);
    }

    /**
     * A detach waits for a stuck sampler for good (a sampler that came back later would read descriptors given back);
     * the JVM's exit, which comes meanwhile, waits for that detach only until its bound, and says so.
     */
    @Test
    void anExitWaitsForADetachHeldByAStuckSamplerOnlyUntilTheBound() throws Exception {
        ThreadRegistry registry = start(dir.resolve("held.jsonl"));
        CountDownLatch inTick = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> sampler = new AtomicReference<>();
        registry.onTick((epochMillis, finalPass, record) -> {
            if (sampler.compareAndSet(null, Thread.currentThread())) {
                inTick.countDown();
                await(release);
            }
        });
        Thread detach = new Thread(registry::close, "detach");
        try {
            assertTrue(inTick.await(DEADLINE_SECONDS, TimeUnit.SECONDS), "the sampler ticked");
            detach.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
            while (detach.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                Thread.sleep(1); // the detach waits in the sampler's join, holding the close
            }
            assertEquals(Thread.State.WAITING, detach.getState(), "the detach waits for the sampler");
            registry.close(TimeUnit.MILLISECONDS.toNanos(100), StatsClosing.AT_EXIT);
            assertEquals(1, warnings.size(), warnings::toString);
            assertTrue(
                    warnings.get(0)
                            .contains("the JVM exits while the agent still closes on another thread, past 100 ms"),
                    warnings::toString);
            assertTrue(detach.isAlive(), "the detach still waited");
        } finally {
            release.countDown();
        }
        detach.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
        assertFalse(detach.isAlive(), "the detach returned once the sampler came back");
        assertEquals(1, warnings.size(), "the detach finished every thread: " + warnings);
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
