package io.perfpin.jvm;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** This test JVM dumped through its DiagnosticCommand MBean, checked against /proc/thread-self. */
class InProcessThreadsTest {
    @Test
    void theCurrentThreadHasTheTidTheKernelGivesIt() throws Exception {
        Thread me = Thread.currentThread();
        ThreadDump dump = ThreadDump.ofThisJvm();

        assertTrue(dump.javaThreads().contains(new JavaThreadInfo(me.getName(), me.getId(), NastyThreads.currentTid(),
                me.isDaemon(), Thread.State.RUNNABLE)), dump.javaThreads().toString());
    }

    @Test
    void nastyNamesSurviveTheMBean() throws Exception {
        try (Parked parked = new Parked(List.of(NastyThreads.NAMES))) {
            ThreadDump dump = ThreadDump.ofThisJvm();

            for (int i = 0; i < parked.threads.length; i++) {
                Thread thread = parked.threads[i];
                JavaThreadInfo expected = new JavaThreadInfo(thread.getName(), thread.getId(), parked.tids[i], false,
                        Thread.State.WAITING);
                assertTrue(dump.javaThreads().contains(expected), NastyThreads.escape(thread.getName()));
            }
        }
    }

    @Test
    void javaThreadsMapsLiveThreadsOnly() throws Exception {
        Thread unstarted = new Thread(() -> { }, "never started");
        Thread ended = new Thread(() -> { }, "ended");
        ended.start();
        ended.join();
        try (Parked parked = new Parked(List.of("perfpin-parked"))) {
            Map<Thread, Integer> tids = JavaThreads.tids(List.of(parked.threads[0], unstarted, ended));

            assertEquals(Map.of(parked.threads[0], parked.tids[0]), tids);
            Map<Thread, Integer> live = JavaThreads.live();
            assertEquals(parked.tids[0], live.get(parked.threads[0]));
            assertEquals(NastyThreads.currentTid(), live.get(Thread.currentThread()));
            assertFalse(live.containsKey(ended));
        }
    }

    /** Threads that record their TID, then park (WAITING) until closed. */
    private static final class Parked implements AutoCloseable {
        final Thread[] threads;
        final int[] tids;
        private final CountDownLatch started;
        private final CountDownLatch release = new CountDownLatch(1);

        Parked(List<String> names) throws InterruptedException {
            threads = new Thread[names.size()];
            tids = new int[names.size()];
            started = new CountDownLatch(names.size());
            for (int i = 0; i < threads.length; i++) {
                int index = i;
                threads[i] = new Thread(() -> {
                    try {
                        tids[index] = NastyThreads.currentTid();
                        started.countDown();
                        release.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, names.get(i));
                threads[i].start();
            }
            started.await();
            NastyThreads.awaitParked(threads);
        }

        @Override
        public void close() {
            release.countDown();
            try {
                for (Thread thread : threads) {
                    thread.join();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
