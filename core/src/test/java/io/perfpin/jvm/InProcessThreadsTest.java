package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.testkit.TestJvm;
import io.perfpin.testkit.Threads;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** This test JVM dumped through its own attach listener, checked against /proc/thread-self. */
class InProcessThreadsTest {
    /** The agent finds the listener running, started by the attach that brought it; here a dump starts it. */
    @BeforeAll
    static void startOwnListener() throws Exception {
        ThreadDump.of(ProcessHandle.current().pid());
    }

    /** Without a listener, a JVM asking itself gets a clear refusal, and no signal: nothing is printed. */
    @Test
    void aJvmWithoutAListenerIsRefusedAndNotSignalled() throws Exception {
        try (TestJvm probe = TestJvm.main(OwnDumpProbe.class).mergeStderr().start()) {
            assertEquals(0, probe.awaitExit(), probe.describe("the probe ended"));
            assertEquals(
                    List.of("refused: process " + probe.pid()
                            + " (java) runs no attach listener (no one attached to it yet)"),
                    probe.lines());
        }
    }

    @Test
    void theCurrentThreadHasTheTidTheKernelGivesIt() throws Exception {
        Thread me = Thread.currentThread();
        ThreadDump dump = ThreadDump.ofThisJvm(ThreadDump.DEFAULT_TIMEOUT);

        assertTrue(
                dump.javaThreads()
                        .contains(new JavaThreadInfo(
                                me.getName(),
                                me.getId(),
                                NastyThreads.currentTid(),
                                me.isDaemon(),
                                Thread.State.RUNNABLE)),
                dump.javaThreads().toString());
    }

    @Test
    void nastyNamesSurviveTheOwnDump() throws Exception {
        try (Parked parked = new Parked(List.of(NastyThreads.NAMES))) {
            ThreadDump dump = ThreadDump.ofThisJvm(ThreadDump.DEFAULT_TIMEOUT);

            for (int i = 0; i < parked.threads.length; i++) {
                Thread thread = parked.threads[i];
                JavaThreadInfo expected = new JavaThreadInfo(
                        thread.getName(), thread.getId(), parked.tids[i], false, Thread.State.WAITING);
                assertTrue(dump.javaThreads().contains(expected), NastyThreads.escape(thread.getName()));
            }
        }
    }

    /** Through the C library (JNI), or this JVM's own dump (JNA): the same TIDs, live threads only. */
    @ParameterizedTest
    @EnumSource(
            value = Backend.class,
            names = {"JNI", "JNA"})
    void javaThreadsMapsLiveThreadsOnly(Backend backend) throws Exception {
        Syscalls syscalls = Backends.load(backend);
        Thread unstarted = new Thread(() -> {}, "never started");
        Thread ended = new Thread(() -> {}, "ended");
        ended.start();
        Threads.join(ended);
        try (Parked parked = new Parked(List.of(NastyThreads.NAMES))) {
            Map<Thread, Integer> tids = JavaThreads.tids(syscalls, List.of(parked.threads[0], unstarted, ended));

            assertEquals(Map.of(parked.threads[0], parked.tids[0]), tids);
            Map<Thread, Integer> live = JavaThreads.live(syscalls);
            for (int i = 0; i < parked.threads.length; i++) {
                assertEquals(
                        parked.tids[i], live.get(parked.threads[i]), NastyThreads.escape(parked.threads[i].getName()));
            }
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
                threads[i] = new Thread(
                        () -> {
                            try {
                                tids[index] = NastyThreads.currentTid();
                                started.countDown();
                                release.await();
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        names.get(i));
                threads[i].start();
            }
            Threads.await(started);
            NastyThreads.awaitParked(threads);
        }

        @Override
        public void close() {
            release.countDown();
            try {
                for (Thread thread : threads) {
                    Threads.join(thread);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
