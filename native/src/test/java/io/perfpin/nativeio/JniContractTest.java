package io.perfpin.nativeio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.testkit.TestJvm;
import io.perfpin.testkit.Threads;
import java.io.IOException;
import java.io.InputStream;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JniContractTest extends SyscallsContract {
    /** Rounds of threads that end while their TIDs are read, and how many threads a round. */
    private static final int ENDING_ROUNDS = 50;

    private static final int ENDING_THREADS = 64;

    /** JVMs whose first threads ask for TIDs all at once: on 2 CPUs, a third of them met when that was wrong. */
    private static final int FIRST_CALL_JVMS = 10;

    @Override
    Backend backend() {
        return Backend.JNI;
    }

    @Test
    void definesAClassInTheBootstrapLoaderOnce() throws Exception {
        Syscalls jni = jni();
        String name = BootProbe.class.getName();
        byte[] classFile = classFile(BootProbe.class);
        assertFalse(BootClasses.has(name), "not on the bootstrap path");
        assertEquals(
                -Errno.EINVAL,
                BootClasses.define(jni, "io.perfpin.nativeio.NotBootProbe", classFile),
                "a class file under another name is refused");
        assertEquals(-Errno.EINVAL, BootClasses.define(jni, name, new byte[] {1, 2, 3}), "no class file");

        assertEquals(0, BootClasses.define(jni, name, classFile));
        assertTrue(BootClasses.has(name));
        Class<?> defined = Class.forName(name, false, null);
        assertNull(defined.getClassLoader(), "the bootstrap class loader's");
        assertNotSame(BootProbe.class, defined, "the class path's copy is another class");
        assertEquals(-Errno.EINVAL, BootClasses.define(jni, name, classFile), "defined once");
        assertEquals(
                -Errno.ENOSYS,
                BootClasses.define(Backends.load(Backend.JNA), name, classFile),
                "only the C library defines classes");
    }

    /**
     * The TIDs of threads read while they end: each is its thread's or -1, never another number, and a JavaThread that
     * HotSpot frees meanwhile does not bring the JVM down.
     */
    @Test
    void readsTheTidsOfThreadsThatEndMeanwhile() throws Exception {
        Syscalls jni = jni();
        for (int round = 0; round < ENDING_ROUNDS; round++) {
            Thread[] threads = new Thread[ENDING_THREADS];
            int[] expected = new int[ENDING_THREADS];
            CountDownLatch started = new CountDownLatch(ENDING_THREADS);
            CountDownLatch end = new CountDownLatch(1);
            try {
                for (int i = 0; i < ENDING_THREADS; i++) {
                    int index = i;
                    threads[i] = new Thread(
                            () -> {
                                expected[index] = jni.gettid();
                                started.countDown();
                                try {
                                    end.await();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            "ending-" + i);
                    threads[i].start();
                }
                Threads.await(started);
                int[] tids = new int[ENDING_THREADS];
                assertEquals(ENDING_THREADS, JavaThreadIds.of(jni, threads, tids), "every thread found while it runs");
                assertArrayEquals(expected, tids);

                end.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                boolean alive;
                do {
                    alive = false;
                    for (Thread thread : threads) {
                        alive |= thread.isAlive();
                    }
                    int found = JavaThreadIds.of(jni, threads, tids);
                    int running = 0;
                    for (int i = 0; i < ENDING_THREADS; i++) {
                        assertTrue(tids[i] == -1 || tids[i] == expected[i], "thread " + i + ": " + tids[i]);
                        running += tids[i] > 0 ? 1 : 0;
                    }
                    assertEquals(running, found);
                    assertTrue(System.nanoTime() < deadline, "the threads ended within the deadline");
                } while (alive);
                assertEquals(0, JavaThreadIds.of(jni, threads, tids), "none once they all ended");
            } finally {
                end.countDown();
                for (Thread thread : threads) {
                    if (thread != null) {
                        Threads.join(thread);
                    }
                }
            }
        }
    }

    /**
     * The first threads of a JVM to ask for TIDs, all at once: each finds its own, none is told that the JVM has no
     * thread structures to read. In several JVMs, since only one first call in each can meet another.
     */
    @Test
    void threadsThatAskFirstAllAtOnceEachFindTheirTid() throws Exception {
        jni();
        for (int jvm = 0; jvm < FIRST_CALL_JVMS; jvm++) {
            List<String> lines =
                    TestJvm.main(FirstCallsProbe.class).args("tids").run();

            assertEquals(Collections.nCopies(FirstCallsProbe.CALLERS, "found 1"), lines, "JVM " + jvm);
        }
    }

    /**
     * Hooks without their methods, the first given in a JVM: each start that looks them up refuses them, and makes no
     * JNI call with the lookup's exception pending, for which -Xcheck:jni would print a warning among these lines.
     */
    @Test
    void hooksWithoutTheirMethodsAreRefusedWithNoExceptionPending() throws Exception {
        jni();
        List<String> lines = TestJvm.main(FirstCallsProbe.class)
                .jvmOptions("-Xcheck:jni")
                .args("hooks-without-methods")
                .run();

        assertEquals(
                List.of(
                        "thread events " + -Errno.EINVAL,
                        "enrolment " + -Errno.ENOSYS,
                        "virtual threads " + -Errno.EINVAL),
                lines);
    }

    @Test
    void releasesAFileMappingBeforeTheGcDoes(@TempDir Path dir) throws IOException {
        Syscalls jni = jni();
        Path file = dir.resolve("mapped");
        MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 3 * 4096 + 100);
        }
        mapped.put(0, (byte) 42);
        assertTrue(mapsName(file), "mapped");
        assertEquals(-Errno.EINVAL, FileMappings.release(jni, mapped.slice(1, 10)), "a slice starts no mapping");
        assertEquals(-Errno.ENOSYS, FileMappings.release(Backends.load(Backend.JNA), mapped));

        assertEquals(0, FileMappings.release(jni, mapped));
        assertFalse(mapsName(file), "the file is no longer mapped");
        assertEquals(0, mapped.get(0), "the buffer reads empty memory");
        mapped.put(1, (byte) 7);
        byte[] content = Files.readAllBytes(file);
        assertEquals(42, content[0], "what was written before stays in the file");
        assertEquals(0, content[1], "a write after the release goes nowhere");
    }

    /**
     * The JVM reports a thread's start and end to the hooks while the events are enabled, and not after they are
     * disabled; enabling them again uses the same JVMTI environment. A hooks class without the methods is refused and
     * enables nothing. (The path where SetEventCallbacks fails cannot be taken from a live JVM: it fails only in the
     * dead phase, after the JVM's last Java code, or for a negative size; there the environment is given back and
     * none is kept, so no later call enables events without callbacks.)
     */
    @Test
    void threadEventsReachTheHooksOnlyWhileEnabled() throws Exception {
        Syscalls jni = jni();
        try {
            assertEquals(0, ThreadLifecycleEvents.disable(jni), "disabling what was never enabled is no failure");
            assertEquals(-Errno.EINVAL, ThreadLifecycleEvents.enable(jni, String.class), "no hooks there");
            assertFalse(ranThrough("thread-events-refused"), "a refused enable reports nothing");

            assertEquals(0, ThreadLifecycleEvents.enable(jni, ThreadHooks.class));
            assertTrue(ranThrough("thread-events-on"), "started and ended, reported: " + ThreadHooks.SEEN);

            assertEquals(0, ThreadLifecycleEvents.disable(jni));
            assertFalse(ranThrough("thread-events-off"), "nothing once disabled: " + ThreadHooks.SEEN);

            assertEquals(0, ThreadLifecycleEvents.enable(jni, ThreadHooks.class));
            assertTrue(ranThrough("thread-events-on-again"), "enabled again: " + ThreadHooks.SEEN);
        } finally {
            ThreadLifecycleEvents.disable(jni);
        }
    }

    /** Whether the hooks saw a thread named {@code name} start and then end, once each, by the time it was joined. */
    private static boolean ranThrough(String name) throws InterruptedException {
        Thread thread = new Thread(() -> {}, name);
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(thread.isAlive(), "ended within the deadline");
        // The JVM reports a thread's end before it lets a join return.
        List<String> seen =
                ThreadHooks.SEEN.stream().filter(e -> e.endsWith(" " + name)).collect(Collectors.toList());
        if (seen.isEmpty()) {
            return false;
        }
        assertEquals(List.of("start " + name, "end " + name), seen);
        return true;
    }

    /** The hooks the JVM calls, as the agent's are: on the thread that starts or ends. */
    public static final class ThreadHooks {
        static final List<String> SEEN = new CopyOnWriteArrayList<>();

        public static boolean runStarting(Thread thread) {
            SEEN.add("start " + thread.getName());
            return true;
        }

        public static void runEnded(Thread thread) {
            SEEN.add("end " + thread.getName());
        }
    }

    private static boolean mapsName(Path file) throws IOException {
        return Files.readAllLines(Paths.get("/proc/self/maps")).stream().anyMatch(l -> l.endsWith(" " + file));
    }

    private static Syscalls jni() {
        try {
            return Backends.load(Backend.JNI);
        } catch (BackendUnavailableException e) {
            Assumptions.abort(e.getMessage());
            throw e;
        }
    }

    private static byte[] classFile(Class<?> type) throws IOException {
        String name = type.getName();
        try (InputStream in = type.getResourceAsStream(name.substring(name.lastIndexOf('.') + 1) + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Defined in the bootstrap loader by the test: nothing else there may know it. */
    static final class BootProbe {}
}
