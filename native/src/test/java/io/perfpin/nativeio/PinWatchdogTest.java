package io.perfpin.nativeio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog forked from this JVM, acting on a thread of this JVM. Closing it ends its input exactly as
 * this process's death would; the CLI's tests kill perfpin itself.
 */
class PinWatchdogTest {
    private static final int PID = (int) ProcessHandle.current().pid();
    /** Long enough for 2048 CPUs; the kernel fills what it has and leaves the rest 0. */
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** fcntl's command to duplicate a descriptor onto the lowest free number from a given one. */
    private static final int F_DUPFD = 0;
    /** Descriptors opened below a lock's: within this project's machines' limit of 20,000. */
    private static final int BALLAST = 12000;

    private Syscalls syscalls;
    private final List<Parked> parked = new ArrayList<>();
    private int tid;
    private long[] before;

    @BeforeEach
    void parkAThread() throws Exception {
        try {
            syscalls = Backends.load(Backend.JNI);
        } catch (BackendUnavailableException e) {
            Assumptions.abort(e.getMessage());
        }
        tid = park().tid;
        before = affinity(tid);
        assumeTrue(CpuMasks.has(before, 0) && CpuMasks.has(before, 1), "needs CPUs 0 and 1");
    }

    @AfterEach
    void endParkedThreads() throws InterruptedException {
        for (Parked thread : parked) {
            syscalls.setAffinity(thread.tid, before);
            thread.end();
        }
    }

    @Test
    void givesAPinNotReleasedItsCpusBackWhenItsInputEndsAndIsReaped() throws IOException {
        PinWatchdog watchdog = PinWatchdog.start(syscalls);
        try {
            watchdog.pinning(PID, tid, startTime(tid), program(), before, CpuMasks.of(0));
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(0)));
            assertArrayEquals(CpuMasks.of(0), affinity(tid));
        } finally {
            watchdog.close();
        }
        assertArrayEquals(before, affinity(tid));
        assertFalse(Files.exists(Paths.get("/proc/" + watchdog.pid())), "exited and reaped");
    }

    @Test
    void leavesAReleasedPinAlone() throws IOException {
        try (PinWatchdog watchdog = PinWatchdog.start(syscalls)) {
            watchdog.pinning(PID, tid, startTime(tid), program(), before, CpuMasks.of(0));
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(0)));
            watchdog.released(PID, tid);
        }
        assertArrayEquals(CpuMasks.of(0), affinity(tid));
    }

    @Test
    void leavesAThreadThatSomeoneElsePinnedSinceAlone() throws IOException {
        try (PinWatchdog watchdog = PinWatchdog.start(syscalls)) {
            watchdog.pinning(PID, tid, startTime(tid), program(), before, CpuMasks.of(0));
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(0)));
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(1)));
        }
        assertArrayEquals(CpuMasks.of(1), affinity(tid));
    }

    /** What a thread that was given the TID of the pinned one, after it ended, looks like. */
    @Test
    void leavesAThreadWithAnotherStartTimeAlone() throws IOException {
        try (PinWatchdog watchdog = PinWatchdog.start(syscalls)) {
            watchdog.pinning(PID, tid, startTime(tid) - 1, program(), before, CpuMasks.of(0));
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(0)));
        }
        assertArrayEquals(CpuMasks.of(0), affinity(tid));
    }

    /** What a process that exec'd another program since it was pinned looks like: its TIDs and masks stay. */
    @Test
    void leavesAThreadOfAProcessThatRunsAnotherProgramSinceAlone() throws IOException {
        PinWatchdog.Program now = program();
        try (PinWatchdog watchdog = PinWatchdog.start(syscalls)) {
            watchdog.pinning(
                    PID,
                    tid,
                    startTime(tid),
                    new PinWatchdog.Program(now.exeDevice(), now.exeInode() + 1, now.credentials()),
                    before,
                    CpuMasks.of(0));
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(0)));
        }
        assertArrayEquals(CpuMasks.of(0), affinity(tid));
    }

    /** A setuid program after an exec: the same TIDs, start times and masks, another effective uid. */
    @Test
    void leavesAThreadOfAProcessThatRunsAsOtherUsersSinceAlone() throws IOException {
        PinWatchdog.Program now = program();
        int[] credentials = now.credentials();
        credentials[1]++; // the effective uid
        try (PinWatchdog watchdog = PinWatchdog.start(syscalls)) {
            watchdog.pinning(
                    PID,
                    tid,
                    startTime(tid),
                    new PinWatchdog.Program(now.exeDevice(), now.exeInode(), credentials),
                    before,
                    CpuMasks.of(0));
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(0)));
        }
        assertArrayEquals(CpuMasks.of(0), affinity(tid));
    }

    @Test
    void skipsAThreadThatEndedAndRestoresTheNext() throws Exception {
        Parked ending = park();
        long endedStart = startTime(ending.tid);
        ending.end();
        awaitGone(Paths.get("/proc/self/task/" + ending.tid));
        int other = park().tid;
        try (PinWatchdog watchdog = PinWatchdog.start(syscalls)) {
            watchdog.pinning(PID, ending.tid, endedStart, program(), before, CpuMasks.of(0));
            watchdog.pinning(PID, tid, startTime(tid), program(), before, CpuMasks.of(0));
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(0)));
            assertEquals(0, syscalls.setAffinity(other, CpuMasks.of(0)));
        }
        assertArrayEquals(before, affinity(tid));
        assertArrayEquals(CpuMasks.of(0), affinity(other), "a thread it was not told of is left alone");
    }

    /**
     * perfpin goes on only once the watchdog has closed what it inherited: a CPU reservation's lock belongs to its
     * file's open, which a watchdog still holding the descriptor would keep past its release here. Thousands of other
     * descriptors below the lock's lengthen the child's closing: a watchdog that told perfpin before it closed them
     * failed this test in two runs of five (it cannot be made to lose the race every time); this order never can.
     */
    @Test
    void holdsNoLockOfThisProcessOnceStarted(@TempDir Path dir) throws Exception {
        FileCalls calls = new FileCalls(syscalls);
        String file = Files.createFile(dir.resolve("cpu-0.lock")).toString();
        List<Integer> opened = new ArrayList<>();
        try {
            int ballast = calls.openat(FileCalls.AT_FDCWD, "/dev/null", FileCalls.O_CLOEXEC, 0);
            assertTrue(ballast >= 0, "open /dev/null: " + ballast);
            opened.add(ballast);
            for (int i = 0; i < BALLAST; i++) {
                int copy = calls.dupAtLeast(ballast, 3);
                assumeTrue(copy >= 0, "no room for the test's descriptors: " + Errno.words(copy));
                opened.add(copy);
            }
            int lockOpen = calls.openat(FileCalls.AT_FDCWD, file, FileCalls.O_RDWR | FileCalls.O_CLOEXEC, 0);
            assertTrue(lockOpen >= 0, "open: " + lockOpen);
            int held = calls.dupAtLeast(lockOpen, BALLAST + 1500);
            calls.close(lockOpen);
            assumeTrue(held >= 0, "no room for the test's descriptors: " + Errno.words(held));
            assertEquals(0, calls.tryLockWhole(held));
            try (PinWatchdog watchdog = PinWatchdog.start(syscalls)) {
                calls.close(held);
                int again = calls.openat(FileCalls.AT_FDCWD, file, FileCalls.O_RDWR | FileCalls.O_CLOEXEC, 0);
                try {
                    assertEquals(0, calls.tryLockWhole(again), "the watchdog " + watchdog.pid() + " kept the lock");
                } finally {
                    calls.close(again);
                }
            }
        } finally {
            for (int fd : opened) {
                calls.close(fd);
            }
        }
    }

    /**
     * A pin or a release told after the close is refused (EBADF) and written nowhere: here the descriptor closed is
     * taken at once by a file, as any open of this process's may take it, and the file stays empty. Another thread of
     * this JVM may open a descriptor between the close and the file's and take that number first: the test then tries
     * again with a watchdog of its own.
     */
    @Test
    void aCallAfterTheCloseIsRefusedAndWritesNothingToTheDescriptorReused(@TempDir Path dir) throws Exception {
        for (int attempt = 0; attempt < REUSE_ATTEMPTS; attempt++) {
            if (refusedAfterTheClose(dir.resolve("reused-" + attempt))) {
                return;
            }
        }
        fail("in " + REUSE_ATTEMPTS + " attempts, another thread took the closed pipe's number before the file could");
    }

    private static final int REUSE_ATTEMPTS = 5;

    /** The test on a watchdog of its own; false where the file could not take the closed pipe's number. */
    private boolean refusedAfterTheClose(Path reused) throws Exception {
        Map<Integer, String> open = descriptors();
        PinWatchdog watchdog = PinWatchdog.start(syscalls);
        int pipe = added(open, descriptors(), "pipe:");
        watchdog.close();
        try (FileChannel file = FileChannel.open(
                reused, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            int opened = added(open, descriptors(), reused.toString());
            // F_DUPFD: the lowest free descriptor from the pipe's number on, which its close left free
            long dup = syscalls.syscall(SyscallNumbers.forThisMachine().fcntl, opened, F_DUPFD, pipe, 0, 0);
            assertTrue(dup >= 0, "F_DUPFD: " + Errno.words((int) dup));
            try {
                if (dup != pipe) {
                    return false;
                }
                NativeException pin = assertThrows(
                        NativeException.class,
                        () -> watchdog.pinning(PID, tid, startTime(tid), program(), before, CpuMasks.of(0)));
                assertEquals(Errno.EBADF, pin.errno());
                NativeException release = assertThrows(NativeException.class, () -> watchdog.released(PID, tid));
                assertEquals(Errno.EBADF, release.errno());
                assertEquals(0, file.size(), "nothing written to the file");
                return true;
            } finally {
                syscalls.close((int) dup);
            }
        }
    }

    /** This process's open descriptors, by number, to what each leads to (the listing's own left out). */
    private static Map<Integer, String> descriptors() throws IOException {
        Map<Integer, String> fds = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Paths.get("/proc/self/fd"))) {
            for (Path fd : entries) {
                try {
                    fds.put(
                            Integer.parseInt(fd.getFileName().toString()),
                            Files.readSymbolicLink(fd).toString());
                } catch (NoSuchFileException closedMeanwhile) {
                    // the listing's own descriptor, or one another thread closed
                }
            }
        }
        fds.values().removeIf(target -> target.endsWith("/fd"));
        return fds;
    }

    /** The one descriptor in {@code now} but not in {@code before} that leads to what starts with {@code target}. */
    private static int added(Map<Integer, String> before, Map<Integer, String> now, String target) {
        List<Integer> added = new ArrayList<>();
        now.forEach((fd, to) -> {
            if (!to.equals(before.get(fd)) && to.startsWith(target)) {
                added.add(fd);
            }
        });
        assertEquals(1, added.size(), target + " among " + now);
        return added.get(0);
    }

    /** Ctrl-C goes to perfpin's process group; the watchdog must outlive perfpin to act after it. */
    @Test
    void runsInASessionOfItsOwnHoldingNoDescriptorOfThisProcessButItsPipe() throws Exception {
        try (PinWatchdog watchdog = PinWatchdog.start(syscalls)) {
            Path proc = Paths.get("/proc/" + watchdog.pid());
            long deadline = System.nanoTime() + WAIT_NANOS;
            // Set up once it waits for records: blocked in read (system call 0 on x86-64).
            while (!firstLine(proc.resolve("syscall")).startsWith("0 ") && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals("perfpin-pins", firstLine(proc.resolve("comm")));
            String[] stat = firstLine(proc.resolve("stat")).split("\\) ")[1].split(" ");
            assertEquals(Integer.toString(watchdog.pid()), stat[6 - 3], "the leader of its own session");
            TreeMap<Integer, String> fds = new TreeMap<>();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc.resolve("fd"))) {
                for (Path fd : entries) {
                    fds.put(
                            Integer.parseInt(fd.getFileName().toString()),
                            Files.readSymbolicLink(fd).toString());
                }
            }
            assertEquals(List.of(0, 1, 2), new ArrayList<>(fds.headMap(3).keySet()), fds.toString());
            assertTrue(fds.headMap(2).values().stream().allMatch("/dev/null"::equals), fds.toString());
            assertEquals(
                    Files.readSymbolicLink(Paths.get("/proc/self/fd/2")).toString(),
                    fds.get(2),
                    "this process's standard error, where it says what it leaves alone");
            assertEquals(1, fds.tailMap(3).size(), fds.toString());
            assertTrue(fds.lastEntry().getValue().startsWith("pipe:"), fds.toString());
        }
    }

    private Parked park() throws InterruptedException {
        Parked thread = new Parked();
        parked.add(thread);
        return thread;
    }

    private long[] affinity(int thread) {
        long[] mask = new long[CpuMasks.WORDS];
        assertTrue(syscalls.getAffinity(thread, mask) > 0);
        return mask;
    }

    /** Field 22 of the thread's stat file; the command before it may hold spaces, but not ") ". */
    private static long startTime(int thread) throws IOException {
        String stat = firstLine(Paths.get("/proc/self/task/" + thread + "/stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(") ") + 2).split(" ")[22 - 3]);
    }

    /** This process's program and credentials, as /proc shows them. */
    private static PinWatchdog.Program program() throws IOException {
        Path exe = Paths.get("/proc/self/exe");
        int[] credentials = new int[8];
        int at = 0;
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("Uid:") || line.startsWith("Gid:")) {
                for (String id : line.substring(4).strip().split("\\s+")) {
                    credentials[at++] = Integer.parseInt(id);
                }
            }
        }
        return new PinWatchdog.Program(
                (Long) Files.getAttribute(exe, "unix:dev"), (Long) Files.getAttribute(exe, "unix:ino"), credentials);
    }

    /** Line by line: Files.readString on a procfs file, whose size reads as 0, returns only its first byte. */
    private static String firstLine(Path file) throws IOException {
        return Files.readAllLines(file).get(0).strip();
    }

    private static void awaitGone(Path path) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (Files.exists(path)) {
            assertTrue(System.nanoTime() < deadline, path + " is still there");
            Thread.sleep(1);
        }
    }

    /** A thread that waits until ended, and its TID. */
    private final class Parked {
        final int tid;
        private final CountDownLatch end = new CountDownLatch(1);
        private final Thread thread;

        Parked() throws InterruptedException {
            AtomicInteger own = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(1);
            thread = new Thread(
                    () -> {
                        own.set(syscalls.gettid());
                        started.countDown();
                        try {
                            end.await(WAIT_NANOS, TimeUnit.NANOSECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "parked");
            thread.setDaemon(true);
            thread.start();
            assertTrue(started.await(WAIT_NANOS, TimeUnit.NANOSECONDS));
            tid = own.get();
        }

        void end() throws InterruptedException {
            end.countDown();
            thread.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
        }
    }
}
