package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.stats.AgentNotice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The descriptor table's mark as Java keeps it for the threads it enrols, on the real kernel: the first thread whose
 * counters reach it takes it away and wakes the sampler, and hands the sampler its highest descriptor, once per mark.
 */
class JavaTableMarkTest {
    private static final long DEADLINE_SECONDS = 60;

    private final Syscalls syscalls = Backends.syscalls();
    private final List<String> said = new CopyOnWriteArrayList<>();

    @Test
    void theFirstThreadAtTheMarkWakesTheSamplerOnceUntilTheMarkIsSetAgain() throws Exception {
        EnrolledThreads threads = new EnrolledThreads(
                syscalls,
                EventList.parse("task-clock,context-switches", new EventParser()),
                DescriptorBudget.unbounded(),
                ThreadPins.ofThisProcess(syscalls, said::add),
                new Notices(new NoticeSink() {
                    @Override
                    public void said(AgentNotice notice) {
                        said.add(notice.toString());
                    }
                }));
        AtomicInteger wakes = new AtomicInteger();
        CountDownLatch stop = new CountDownLatch(1);
        Thread sampler = new Thread(
                () -> {
                    while (stop.getCount() > 0) {
                        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS));
                        wakes.incrementAndGet();
                    }
                },
                "java-table-mark-sampler");
        List<Parked> parked = new ArrayList<>();
        List<TrackedThread> live = new ArrayList<>();
        sampler.start();
        try {
            enrol(threads, parked, "before-the-sampler");
            assertEquals(-1, threads.tableReached(), "no mark before the sampler sets one");

            threads.tableMark(0, sampler);
            int wakesBefore = wakes.get();
            enrol(threads, parked, "at-the-mark");
            int reached = threads.tableReached();
            assertTrue(reached > 0, "the thread's highest descriptor: " + reached);
            assertEquals(
                    "anon_inode:[perf_event]",
                    Files.readSymbolicLink(Path.of("/proc/self/fd/" + reached)).toString(),
                    "one of its counters");
            assertEquals(-1, threads.tableReached(), "taken once");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
            while (wakes.get() == wakesBefore && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(wakes.get() > wakesBefore, "the sampler woken");

            enrol(threads, parked, "past-the-taken-mark");
            assertEquals(-1, threads.tableReached(), "the mark is gone until the sampler sets it again");

            threads.tableMark(Integer.MAX_VALUE - 1, sampler);
            enrol(threads, parked, "below-the-mark");
            assertEquals(-1, threads.tableReached(), "no descriptor reaches the mark");

            threads.tableMark(0, sampler);
            enrol(threads, parked, "at-the-mark-again");
            assertTrue(threads.tableReached() > 0, "the mark set again is reached again");
            assertEquals(List.of(), said, "nothing to say");
        } finally {
            stop.countDown();
            LockSupport.unpark(sampler);
            threads.admitInto(live);
            for (TrackedThread t : live) {
                threads.finished(t);
            }
            threads.close();
            for (Parked p : parked) {
                p.close();
            }
            sampler.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
        }
        assertEquals(5, live.size(), "every thread enrolled, and let go of");
        assertFalse(sampler.isAlive(), "the sampler's stand-in ended within the deadline");
    }

    private void enrol(EnrolledThreads threads, List<Parked> parked, String name) throws InterruptedException {
        Parked thread = new Parked(name, syscalls);
        parked.add(thread);
        assertTrue(threads.enrol(thread.thread, thread.tid(), null, null, false), name + " enrolled");
    }

    /** A thread that waits until closed, and says its tid. */
    private static final class Parked implements AutoCloseable {
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread thread;
        private volatile int tid;

        Parked(String name, Syscalls syscalls) {
            thread = new Thread(
                    () -> {
                        tid = syscalls.gettid();
                        started.countDown();
                        try {
                            release.await(DEADLINE_SECONDS, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    name);
            thread.start();
        }

        int tid() throws InterruptedException {
            assertTrue(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS), "started within the deadline");
            return tid;
        }

        @Override
        public void close() throws InterruptedException {
            release.countDown();
            thread.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            assertFalse(thread.isAlive(), "ended within the deadline");
        }
    }
}
