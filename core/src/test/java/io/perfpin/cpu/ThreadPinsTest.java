package io.perfpin.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.jvm.ProcessChangedException;
import io.perfpin.jvm.ProcessIdentity;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.jvm.ThreadStartTime;
import io.perfpin.nativeio.Backends;
import io.perfpin.testkit.SystemProperty;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ThreadPins on threads of this JVM, as the kernel shows them in /proc/self/task/TID/status: a pin and its undoing,
 * the CPUs a placement chose, said in one line, and what it recorded that the kernel no longer shows: a thread
 * whose TID another thread took between the read of its start time and the pin, and a pid that names another
 * process than the one checked. Forcing either for real takes a wrap of the pid space; here the recorded start time
 * differs, and the pin, the check and the undo are the kernel's own.
 */
class ThreadPinsTest {
    /** Where the CPU reservations go: no other test's pins share them. */
    @TempDir
    Path dir;

    private SystemProperty ownDirectory;
    private final List<String> said = new ArrayList<>();
    private final List<Parked> threads = new ArrayList<>();

    @BeforeEach
    void ownReservations() {
        ownDirectory = SystemProperty.set(PerfpinDirectory.PROPERTY, dir.toString());
    }

    @AfterEach
    void release() throws InterruptedException {
        try {
            for (Parked thread : threads) {
                thread.close();
            }
        } finally {
            ownDirectory.close();
        }
    }

    @Test
    void aPinSetsTheListedCpusAndCloseGivesTheThreadItsOwnBack() throws Exception {
        int tid = parked("worker-0");
        String before = cpusBefore(tid);
        try (ThreadPins pins = ThreadPins.ofThisProcess(Backends.syscalls(), said::add)) {
            ThreadPins.Pin pin = pins.pin(tid, "worker-0", Placement.parse("0"));
            assertEquals(CpuSet.of(0), pin.cpus());
            assertEquals(before, pin.before().toString());
            assertEquals("0", cpusAllowed(tid));
            assertTrue(pins.isPinned(tid));
            assertEquals("", ThreadPins.placed("pin=0", List.of(pin)), "a CPU list is the user's, not chosen");
        }
        assertEquals(before, cpusAllowed(tid), "its own CPUs back");
        assertEquals(List.of(), said);
    }

    /**
     * A pin that comes after the close, as one racing it from another thread would land after the close gave every
     * pin back, is refused and leaves the thread as it was: nothing would give it back later.
     */
    @Test
    void aPinAfterTheCloseIsRefusedAndLeavesTheThreadAsItWas() throws Exception {
        int tid = parked("worker-0");
        String before = cpusBefore(tid);
        ThreadPins pins = ThreadPins.ofThisProcess(Backends.syscalls(), said::add);
        pins.close();
        IllegalStateException refused =
                assertThrows(IllegalStateException.class, () -> pins.pin(tid, "worker-0", Placement.parse("0")));
        assertEquals("perfpin no longer pins: it gave every pin back as it stopped", refused.getMessage());
        assertFalse(pins.isPinned(tid));
        assertEquals(before, cpusAllowed(tid), "its own CPUs still");
    }

    /** pin=core chooses a core for each thread: said in one line, each name (cut when long) with its CPU. */
    @Test
    void theCpusACorePlacementChoseAreSaidInOneLine() throws Exception {
        List<CpuSet> cores = CpuTopology.live().cores();
        CpuSet allowed = CpuTopology.live().allowed();
        assumeTrue(cores.stream().filter(allowed::containsAll).count() >= 2, "needs two whole cores: " + cores);
        String longName = "a-pool-with-a-long-name-thread-worker-2";
        int first = parked("worker-1");
        int second = parked(longName);
        String before = cpusAllowed(first);
        try (ThreadPins pins = ThreadPins.ofThisProcess(Backends.syscalls(), said::add)) {
            List<ThreadPins.Pin> placed =
                    List.of(pins.pin(first, "worker-1", Placement.CORE), pins.pin(second, longName, Placement.CORE));
            String firstCpus = cpusAllowed(first);
            String secondCpus = cpusAllowed(second);
            assertFalse(firstCpus.equals(secondCpus), "a core each: " + firstCpus + ", " + secondCpus);
            // The long name keeps its start and end.
            assertEquals(
                    "pin=core placed worker-1 on " + cpuWord(firstCpus) + ", a-pool-with-a-lo\u2026thread-worker-2"
                            + " on " + cpuWord(secondCpus),
                    ThreadPins.placed("pin=core", placed));
        }
        assertEquals(before, cpusAllowed(first));
        assertEquals(before, cpusAllowed(second));
    }

    @Test
    void aThreadWithAnotherStartTimeThanTheOneReadIsUnpinnedAtOnce() throws Exception {
        int tid = parked("worker-0");
        String before = cpusBefore(tid);
        long startTime = ThreadStartTime.of(ThisProcess.pid(), tid).orElseThrow();
        try (ThreadPins pins =
                ThreadPins.ofProcess(Backends.syscalls(), ProcessIdentity.of(ThisProcess.pid()), said::add)) {
            IOException e = assertThrows(
                    IOException.class, () -> pins.pin(tid, startTime - 1, "worker-0", Placement.parse("0")));
            assertEquals(
                    "thread 'worker-0' (tid " + tid + ") ended as perfpin pinned it, and its tid may"
                            + " be another thread's now",
                    e.getMessage());
            assertFalse(pins.isPinned(tid));
        }
        // Last: a backend that cannot start the watchdog says so before.
        assertEquals(
                "undid the pin of tid " + tid + " at once, back to CPUs " + before + ": thread 'worker-0' (tid " + tid
                        + ") ended as perfpin pinned it, and its tid may be another thread's now",
                said.get(said.size() - 1),
                said.toString());
        assertEquals(before, cpusAllowed(tid));
    }

    /** What a thread dump answered by a process whose pid another process has taken since the check looks like. */
    @Test
    void aPidThatNamesAnotherProcessThanTheOneCheckedIsNotPinned() throws Exception {
        int tid = parked("worker-0");
        String before = cpusBefore(tid);
        ProcessIdentity now = ProcessIdentity.of(ThisProcess.pid());
        ProcessIdentity checked =
                new ProcessIdentity(now.pid(), now.command(), now.startTime() - 1, now.uids(), now.gids(), now.exe());
        try (ThreadPins pins = ThreadPins.ofProcess(Backends.syscalls(), checked, said::add)) {
            ProcessChangedException e =
                    assertThrows(ProcessChangedException.class, () -> pins.pin(tid, "worker-0", Placement.parse("0")));
            assertEquals(
                    "process " + now.pid() + " (" + now.command() + ") exited, and pid " + now.pid() + " names"
                            + " another process now (" + now.command() + ")",
                    e.getMessage());
            assertFalse(pins.isPinned(tid));
            assertEquals(before, cpusAllowed(tid));
        }
        assertEquals(List.of(), said, "nothing pinned, nothing to say");
    }

    private static String cpuWord(String cpus) {
        return (cpus.matches("\\d+") ? "CPU " : "CPUs ") + cpus;
    }

    /** A thread of this JVM, parked until the test ends; its TID. */
    private int parked(String name) throws InterruptedException {
        Parked thread = new Parked(name);
        threads.add(thread);
        return thread.tid();
    }

    private static String cpusBefore(int tid) throws IOException {
        String before = cpusAllowed(tid);
        assumeTrue(before.matches("0[-,].*"), "needs CPU 0 and another: " + before);
        return before;
    }

    private static String cpusAllowed(int tid) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).strip();
            }
        }
        throw new IllegalStateException("no Cpus_allowed_list for thread " + tid);
    }

    private static final class Parked {
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread thread;
        private volatile int tid;

        Parked(String name) {
            thread = new Thread(
                    () -> {
                        tid = Backends.syscalls().gettid();
                        started.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    name);
            thread.setDaemon(true);
            thread.start();
        }

        int tid() throws InterruptedException {
            assertTrue(started.await(10, TimeUnit.SECONDS), "thread started");
            return tid;
        }

        void close() throws InterruptedException {
            release.countDown();
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
    }
}
