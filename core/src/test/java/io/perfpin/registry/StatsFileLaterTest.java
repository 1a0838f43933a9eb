package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsClosing;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stats file asked for later is made on the sampler thread shortly after it starts, while the thread that started
 * the registry goes on (the agent's premain): what happens before the file exists must still reach it. The sampler is
 * held inside the file's path supplier by a latch, so each test knows the file is not there yet.
 */
class StatsFileLaterTest {
    private static final long DEADLINE_SECONDS = 20;

    @TempDir
    Path dir;

    private final List<AgentNotice> said = new CopyOnWriteArrayList<>();
    private final List<AgentNotice> unpublished = new CopyOnWriteArrayList<>();
    private final CountDownLatch asked = new CountDownLatch(1);
    private final CountDownLatch answer = new CountDownLatch(1);

    private ThreadRegistry start(Path statsFile) throws IOException {
        return start(statsFile, 10_000_000L, RegistryConfig.DEFERRED_DELAY.toNanos());
    }

    private ThreadRegistry start(Path statsFile, long intervalNanos, long deferredDelayNanos) throws IOException {
        Supplier<Path> held = () -> {
            asked.countDown();
            await(answer);
            return statsFile;
        };
        return ThreadRegistry.start(
                Backends.syscalls(),
                RegistryConfig.of(EventList.parse("task-clock", new EventParser()))
                        .withInterval(intervalNanos)
                        .withDeferredDelay(deferredDelayNanos)
                        .withStatsFileLater(held),
                new NoticeSink() {
                    @Override
                    public void said(AgentNotice notice) {
                        said.add(notice);
                    }

                    @Override
                    public void unpublished(AgentNotice notice) {
                        unpublished.add(notice);
                    }
                });
    }

    /**
     * Closed (as by a JVM that exits at once) while the sampler is still making the file: close waits for it, and
     * a viewer finds the file, marked closed, with the notice posted before it existed and the final counts of a
     * thread enrolled before it existed.
     */
    @Test
    void closedBeforeTheFileExistsTheFileHoldsWhatCameBeforeAndIsMarkedClosed() throws Exception {
        Path statsFile = dir.resolve("later.stats");
        ThreadRegistry registry = start(statsFile);
        Thread closer = new Thread(registry::close, "closer");
        try {
            assertTrue(asked.await(DEADLINE_SECONDS, TimeUnit.SECONDS));
            assertFalse(Files.exists(statsFile));
            assertTrue(registry.publishesNotices(), "a notice posted now waits for the file");
            registry.post(AgentNotice.info("said before the file"));
            assertTrue(registry.enrolCurrentThread(null, null));
            closer.start();
        } finally {
            answer.countDown();
            closer.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            registry.close();
        }
        assertFalse(closer.isAlive(), "close returned");
        try (StatsFileReader reader = StatsFileReader.open(statsFile)) {
            StatsSnapshot snapshot = reader.snapshot();
            assertEquals(StatsClosing.WHILE_RUNNING, snapshot.closing(), "a close, not the JVM's exit");
            assertEquals(List.of(AgentNotice.info("said before the file")), snapshot.notices());
            assertEquals(1, snapshot.finishedTotal(), "this thread's final counts");
        }
        assertEquals(List.of(), unpublished);
    }

    /**
     * Closed before the sampler came to it, as by a short main: no file is made, since no viewer could
     * have found it, and the notice that waited for it is handed back to the sink.
     */
    @Test
    void closedBeforeTheSamplerCameToItMakesNoFileAndHandsBackWhatWaited() throws Exception {
        Path statsFile = dir.resolve("never.stats");
        ThreadRegistry registry = start(statsFile, TimeUnit.HOURS.toNanos(1), TimeUnit.HOURS.toNanos(1));
        try {
            registry.post(AgentNotice.info("said before the file"));
            assertTrue(registry.enrolCurrentThread(null, null));
        } finally {
            registry.close();
        }
        assertEquals(1, asked.getCount(), "the file's path was never asked for");
        assertFalse(Files.exists(statsFile));
        assertEquals(List.of(AgentNotice.info("said before the file")), unpublished);
    }

    /**
     * No file after all (its directory cannot be used): the notices that waited for it are handed back to the sink,
     * the last chance to show them, and counting goes on.
     */
    @Test
    void aFileThatCannotBeMadeHandsBackWhatWaitedForIt() throws Exception {
        Path notADirectory = Files.createFile(dir.resolve("plain"));
        ThreadRegistry registry = start(notADirectory.resolve("later.stats"));
        try {
            assertTrue(asked.await(DEADLINE_SECONDS, TimeUnit.SECONDS));
            registry.post(AgentNotice.info("said before the file"));
            answer.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
            while (registry.publishesNotices() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertFalse(registry.publishesNotices());
            // the registry's own notice that there is no file waited too: said, and handed back once, after it
            assertEquals(2, unpublished.size(), unpublished.toString());
            assertEquals(AgentNotice.info("said before the file"), unpublished.get(0));
            assertTrue(unpublished.get(1).text().startsWith("no live view"), unpublished.toString());
            assertEquals(List.of(unpublished.get(1)), said);
            assertTrue(registry.enrolCurrentThread(null, null), "counting goes on");
        } finally {
            answer.countDown();
            registry.close();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never answered");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
