package io.perfpin.nativeio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.testkit.TestJvm;
import io.perfpin.testkit.Threads;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@link Syscalls} contract, asserted against the running kernel; one subclass per {@link Backend} runs
 * the same assertions. A backend that cannot load here is reported as skipped, with the reason.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SyscallsContract {
    /** Long enough for 2048 CPUs, more than any kernel's cpumask here. */
    private static final int NONEXISTENT_CPU = 1000;

    /** PERF_COUNT_SW_* of linux/perf_event.h. */
    private static final long TASK_CLOCK = 1;

    private static final long PAGE_FAULTS = 2;
    private static final long CONTEXT_SWITCHES = 3;

    private static final long TIMES = PerfEventAttr.FORMAT_TOTAL_TIME_ENABLED | PerfEventAttr.FORMAT_TOTAL_TIME_RUNNING;

    /** read(2) of a single event with {@link #TIMES}: value, time_enabled, time_running. */
    private static final int SINGLE_BYTES = 3 * Long.BYTES;

    private static final int SINGLE_VALUE = 0;
    private static final int SINGLE_ENABLED = 8;

    /**
     * read(2) of a group leader with FORMAT_GROUP | ID | TIMES:
     * <pre>
     * offset  field
     *      0  nr
     *      8  time_enabled
     *     16  time_running
     *     24  {value, id} of the leader, then of each member in the order they joined, 16 bytes each
     * </pre>
     */
    private static final int GROUP_NR = 0;

    private static final int GROUP_ENABLED = 8;
    private static final int GROUP_MEMBERS = 24;
    private static final int GROUP_MEMBER_BYTES = 16;

    private static volatile long sink;

    private Syscalls syscalls;
    private NativeBuffer attr;
    private NativeBuffer out;

    abstract Backend backend();

    @BeforeAll
    void loadBackend() {
        try {
            syscalls = Backends.load(backend());
        } catch (BackendUnavailableException e) {
            Assumptions.abort(e.getMessage());
        }
        attr = NativeBuffer.allocate(syscalls, PerfEventAttr.SIZE);
        out = NativeBuffer.allocate(syscalls, 256);
    }

    @Test
    void isTheBackendAskedFor() {
        assertEquals(backend(), syscalls.backend());
    }

    @Test
    void gettidIsTheThreadOfProcThreadSelf() throws IOException {
        String link = Files.readSymbolicLink(Paths.get("/proc/thread-self")).toString();
        assertEquals(ProcessHandle.current().pid() + "/task/" + syscalls.gettid(), link);
    }

    @Test
    void syscallByNumberReturnsTheResultOrMinusErrno() throws IOException {
        FileCalls calls = new FileCalls(syscalls);
        assertEquals(-Errno.ENOENT, calls.openat(FileCalls.AT_FDCWD, "/nonexistent/perfpin", FileCalls.O_RDONLY, 0));
        int fd = calls.openat(FileCalls.AT_FDCWD, "/proc/self/status", FileCalls.O_RDONLY | FileCalls.O_CLOEXEC, 0);
        assertTrue(fd >= 0, "openat: " + fd);
        try {
            FileStat status = calls.fstat(fd);
            assertTrue(status.isRegularFile());
            assertEquals(Files.getAttribute(Paths.get("/proc/self/status"), "unix:uid"), status.uid());
        } finally {
            assertEquals(0, calls.close(fd));
        }
    }

    /**
     * A pidfd names its process and no other: a signal through it reaches the process, and once the process has ended
     * and been reaped, it says ESRCH rather than signal what may have the pid now.
     */
    @Test
    void aPidfdSignalsItsProcessAndNothingOnceItEnded() throws Exception {
        FileCalls calls = new FileCalls(syscalls);
        try (TestJvm sleep = TestJvm.program("sleep", "600").start()) {
            int pidfd = calls.pidfdOpen(sleep.pid());
            assumeTrue(pidfd != -Errno.ENOSYS, "no pidfd_open before Linux 5.3");
            assertTrue(pidfd >= 0, "pidfd_open: " + Errno.words(pidfd));
            try {
                assertEquals(0, calls.pidfdSendSignal(pidfd, 0), "signal 0: it is there");
                assertEquals(0, calls.pidfdSendSignal(pidfd, 15));
                assertEquals(128 + 15, sleep.exitWithin(Duration.ofSeconds(60)), "ended by the SIGTERM sent");
                assertEquals(-Errno.ESRCH, calls.pidfdSendSignal(pidfd, 0), "reaped");
            } finally {
                calls.close(pidfd);
            }
        }
        assertEquals(-Errno.ESRCH, calls.pidfdOpen(Integer.MAX_VALUE));
    }

    /**
     * statx's fields as the JDK's own {@code unix:} view reads them (its {@code stat}), and a change of the inode (a
     * chmod) seen in {@link FileStat#unchangedSince}, where the file's identity stays.
     */
    @Test
    void statxSaysWhatStatSaysAndSeesTheInodeChange(@TempDir Path dir) throws Exception {
        FileCalls calls = new FileCalls(syscalls);
        Path file = Files.writeString(dir.resolve("stated"), "perfpin");
        FileStat before = calls.statx(FileCalls.AT_FDCWD, file.toString(), FileCalls.AT_SYMLINK_NOFOLLOW);
        Map<String, Object> stat = Files.readAttributes(file, "unix:*", LinkOption.NOFOLLOW_LINKS);
        assertEquals(stat.get("ino"), before.inode());
        assertEquals(stat.get("uid"), before.uid());
        assertEquals(stat.get("gid"), before.gid());
        assertEquals(stat.get("mode"), before.mode());
        assertEquals(stat.get("nlink"), before.links());
        assertEquals(stat.get("size"), before.size());
        assertEquals(((FileTime) stat.get("ctime")).to(TimeUnit.NANOSECONDS), before.changedNanos());
        assertTrue(before.unchangedSince(before));

        // the kernel's clock for inode times may be coarse: chmod until the change time moves, within a deadline
        FileStat after = before;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (int i = 0; after.changedNanos() == before.changedNanos() && System.nanoTime() < deadline; i++) {
            Files.setPosixFilePermissions(
                    file, PosixFilePermissions.fromString(i % 2 == 0 ? "rw-------" : "rw-r-----"));
            after = calls.statx(FileCalls.AT_FDCWD, file.toString(), FileCalls.AT_SYMLINK_NOFOLLOW);
        }
        assertNotEquals(before.changedNanos(), after.changedNanos(), "a chmod moves the change time");
        assertTrue(after.sameFileAs(before), "the same file");
        assertFalse(after.unchangedSince(before), "but not unchanged");
    }

    /**
     * A Unix socket by its own calls: the listener reads the request whole, and the reply (over one read's worth)
     * comes back whole, then its end; where nobody listens, no connection; a silent peer ends the wait at its
     * deadline.
     */
    @Test
    void aUnixConnectionSendsAndReceivesToTheEndAndIsRefusedWhereNobodyListens(@TempDir Path dir) throws Exception {
        FileCalls calls = new FileCalls(syscalls);
        Path path = dir.resolve("socket");
        byte[] request = "1\0threaddump\0\0\0\0".getBytes(StandardCharsets.US_ASCII);
        byte[] reply = new byte[200_000];
        new Random(7).nextBytes(reply);
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(path));
            AtomicReference<byte[]> received = new AtomicReference<>();
            Thread peer = new Thread(() -> {
                try (SocketChannel accepted = listener.accept()) {
                    ByteBuffer in = ByteBuffer.allocate(request.length);
                    while (in.hasRemaining() && accepted.read(in) >= 0) {}
                    received.set(in.array());
                    accepted.write(ByteBuffer.wrap(reply));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            peer.start();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try (UnixConnection connection =
                    UnixConnection.connect(calls, path.toString(), System.nanoTime() + 60_000_000_000L)) {
                connection.send(request);
                byte[] chunk = new byte[64 * 1024];
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                for (int read; (read = connection.receive(chunk, deadline)) != -1; ) {
                    assertTrue(read > 0, "the reply came before the deadline");
                    got.write(chunk, 0, read);
                }
            } finally {
                Threads.join(Duration.ofSeconds(60), peer);
            }
            assertArrayEquals(request, received.get());
            assertArrayEquals(reply, got.toByteArray());

            Thread silent = new Thread(() -> {
                try (SocketChannel accepted = listener.accept()) {
                    accepted.read(ByteBuffer.allocate(1)); // until the other end closes
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            silent.start();
            try (UnixConnection connection =
                    UnixConnection.connect(calls, path.toString(), System.nanoTime() + 60_000_000_000L)) {
                assertEquals(0, connection.receive(new byte[16], System.nanoTime() + 200_000_000L));
            } finally {
                Threads.join(Duration.ofSeconds(60), silent);
            }
        }
        assertNull(
                UnixConnection.connect(calls, path.toString(), System.nanoTime() + 60_000_000_000L),
                "the socket's file stays, nobody listens on it");
    }

    /**
     * A listener whose queue is full refuses a connection for now, not for good: the connection is tried again until
     * its deadline, and made once the listener accepts one of those waiting; past its deadline, it fails saying so.
     */
    @Test
    void aUnixConnectionWaitsForAFullQueueUntilItsDeadline(@TempDir Path dir) throws Exception {
        FileCalls calls = new FileCalls(syscalls);
        String path = dir.resolve("socket").toString();
        List<UnixConnection> queued = new ArrayList<>();
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(path), 1);
            IOException full = null;
            while (full == null) {
                try {
                    queued.add(UnixConnection.connect(calls, path, System.nanoTime()));
                } catch (IOException e) {
                    full = e;
                }
                assertTrue(queued.size() < 100, "the queue of one filled: " + queued.size());
            }
            assertTrue(full.getMessage().contains("queue stayed full"), full.getMessage());
            AtomicReference<UnixConnection> late = new AtomicReference<>();
            Thread waiting = new Thread(() -> {
                try {
                    late.set(UnixConnection.connect(calls, path, System.nanoTime() + 60_000_000_000L));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            waiting.start();
            try (SocketChannel accepted = listener.accept()) {
                Threads.join(Duration.ofSeconds(60), waiting);
                assertTrue(late.get() != null, "connected once the listener took one from its queue");
            } finally {
                if (late.get() != null) {
                    late.get().close();
                }
            }
        } finally {
            queued.forEach(UnixConnection::close);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void pinsTheCallingThreadToOneCpu(int cpu) throws IOException {
        int tid = syscalls.gettid();
        long[] original = new long[CpuMasks.WORDS];
        assertTrue(syscalls.getAffinity(tid, original) > 0);
        assumeTrue(CpuMasks.has(original, cpu), "CPU " + cpu + " is not in this thread's affinity mask");
        String allowedBefore = cpusAllowedList(tid);
        try {
            assertEquals(0, syscalls.setAffinity(tid, CpuMasks.of(cpu)));
            long where = syscalls.getcpu();
            assertTrue(where >= 0, () -> "getcpu: " + Errno.name(where));
            assertEquals(cpu, (int) where);
            assertEquals(String.valueOf(cpu), cpusAllowedList(tid));
        } finally {
            assertEquals(0, syscalls.setAffinity(tid, original));
        }
        assertEquals(allowedBefore, cpusAllowedList(tid));
    }

    @Test
    void refusesAMaskOfOnlyNonexistentCpus() throws IOException {
        int tid = syscalls.gettid();
        String allowedBefore = cpusAllowedList(tid);
        assertEquals(-Errno.EINVAL, syscalls.setAffinity(tid, CpuMasks.of(NONEXISTENT_CPU)));
        assertEquals(-Errno.EINVAL, syscalls.setAffinity(tid, new long[0]));
        assertEquals(allowedBefore, cpusAllowedList(tid));
    }

    /**
     * The kernel writes min(mask bytes, its cpumask size) and returns that count; it refuses a mask with
     * fewer bits than the machine's possible CPUs.
     */
    @Test
    void getAffinityReturnsTheKernelsByteCount() throws IOException {
        int tid = syscalls.gettid();
        long[] mask = new long[CpuMasks.WORDS];
        int bytes = syscalls.getAffinity(tid, mask);
        int possibleCpus = possibleCpus();
        assertTrue(
                bytes >= wordsFor(possibleCpus) * Long.BYTES
                        && bytes <= CpuMasks.WORDS * Long.BYTES
                        && bytes % Long.BYTES == 0,
                "byte count " + bytes);
        assertArrayEquals(parseCpuList(cpusAllowedList(tid)), mask);

        assertEquals(-Errno.EINVAL, syscalls.getAffinity(tid, new long[0]));
        assumeTrue(possibleCpus <= Long.SIZE, "more than 64 possible CPUs: a one-word mask is too small");
        long[] oneWord = new long[1];
        assertEquals(Long.BYTES, syscalls.getAffinity(tid, oneWord));
        assertEquals(mask[0], oneWord[0]);
    }

    @Test
    void countsTheCallingThreadsTaskClock() {
        int fd = open(TASK_CLOCK, TIMES, 0, 0, -1);
        burnCpu();
        assertEquals(SINGLE_BYTES, syscalls.read(fd, out.address(), SINGLE_BYTES));
        assertTrue(out.getLong(SINGLE_VALUE) > 0, "task-clock value");
        assertTrue(out.getLong(SINGLE_ENABLED) > 0, "time enabled");
        assertEquals(0, syscalls.close(fd));
        assertEquals(-Errno.EBADF, syscalls.close(fd));
        assertEquals(-Errno.EBADF, syscalls.read(fd, out.address(), SINGLE_BYTES));
    }

    @Test
    void readsEnablesDisablesAndResetsAGroup() throws InterruptedException {
        long format = PerfEventAttr.FORMAT_GROUP | PerfEventAttr.FORMAT_ID | TIMES;
        int leader = open(TASK_CLOCK, format, PerfEventAttr.FLAG_DISABLED, 0, -1);
        int faults = open(PAGE_FAULTS, format, 0, 0, leader);
        int switches = open(CONTEXT_SWITCHES, format, 0, 0, leader);
        int[] fds = {leader, faults, switches};
        long[] ids = new long[fds.length];
        for (int i = 0; i < fds.length; i++) {
            assertEquals(0, syscalls.ioctl(fds[i], PerfIoctl.ID, out.address()));
            ids[i] = out.getLong(0);
        }
        int groupBytes = GROUP_MEMBERS + fds.length * GROUP_MEMBER_BYTES;

        readGroup(leader, groupBytes, ids);
        assertGroupValues(0, 0, 0);

        assertEquals(0, syscalls.ioctl(leader, PerfIoctl.ENABLE, PerfIoctl.FLAG_GROUP));
        burnCpu();
        touchFreshPages();
        Thread.sleep(1);
        assertEquals(0, syscalls.ioctl(leader, PerfIoctl.DISABLE, PerfIoctl.FLAG_GROUP));
        readGroup(leader, groupBytes, ids);
        assertTrue(out.getLong(GROUP_ENABLED) > 0, "time enabled");
        long[] counted = groupValues(fds.length);
        for (int i = 0; i < counted.length; i++) {
            assertTrue(counted[i] > 0, "member " + i + " counted " + counted[i]);
        }

        burnCpu();
        touchFreshPages();
        readGroup(leader, groupBytes, ids);
        assertArrayEquals(counted, groupValues(fds.length), "a disabled group counts nothing");

        assertEquals(0, syscalls.ioctl(leader, PerfIoctl.RESET, PerfIoctl.FLAG_GROUP));
        readGroup(leader, groupBytes, ids);
        assertGroupValues(0, 0, 0);

        for (int fd : new int[] {switches, faults, leader}) {
            assertEquals(0, syscalls.close(fd));
        }
    }

    @Test
    void countsAnotherThreadOfThisProcessByItsTid() throws InterruptedException {
        AtomicInteger workerTid = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch opened = new CountDownLatch(1);
        CountDownLatch burned = new CountDownLatch(1);
        CountDownLatch read = new CountDownLatch(1);
        Thread worker = new Thread(
                () -> {
                    workerTid.set(syscalls.gettid());
                    started.countDown();
                    awaitQuietly(opened);
                    burnCpu();
                    burned.countDown();
                    awaitQuietly(read);
                },
                "perfpin-contract-worker");
        worker.start();
        int fd = -1;
        try {
            Threads.await(started);
            assertNotEquals(syscalls.gettid(), workerTid.get());
            fd = open(TASK_CLOCK, TIMES, 0, workerTid.get(), -1);
            opened.countDown();
            Threads.await(burned);
            assertEquals(SINGLE_BYTES, syscalls.read(fd, out.address(), SINGLE_BYTES));
            assertTrue(out.getLong(SINGLE_VALUE) > 0, "the worker's task-clock");
        } finally {
            opened.countDown();
            read.countDown();
            // both latches counted down: the worker ends at once, unless something hangs it
            Threads.join(worker);
            if (fd >= 0) {
                assertEquals(0, syscalls.close(fd));
            }
        }
    }

    /** pid_max itself is never a pid: pids are below it. */
    @Test
    void refusesATidThatDoesNotExist() throws IOException {
        int pidMax = Integer.parseInt(firstLine("/proc/sys/kernel/pid_max"));
        new PerfEventAttr()
                .type(PerfEventAttr.TYPE_SOFTWARE)
                .config(TASK_CLOCK)
                .readFormat(TIMES)
                .writeTo(attr.buffer());
        assertEquals(-Errno.ESRCH, syscalls.perfEventOpen(attr.address(), pidMax, -1, -1, 0), "pid " + pidMax);
    }

    /**
     * Software events have no hardware counter (the page's index is 0), so even JNI's rdpmc path falls back
     * to read(2) here; the value lies between two reads taken around it.
     */
    @Test
    void selfReadFallsBackToReadForSoftwareEvents() {
        int fd = open(TASK_CLOCK, TIMES, 0, 0, -1);
        long page = syscalls.mmapPerfPage(fd);
        assertTrue(page >= 0, () -> "mmap: " + Errno.name(page));
        assertEquals(backend() == Backend.JNI, page != 0, "only JNI maps the page");
        try {
            burnCpu();
            assertEquals(SINGLE_BYTES, syscalls.read(fd, out.address(), SINGLE_BYTES));
            long before = out.getLong(SINGLE_VALUE);
            assertEquals(0, syscalls.selfRead(page, fd, out.address()));
            long self = out.getLong(SINGLE_VALUE);
            assertTrue(out.getLong(SINGLE_ENABLED) > 0, "time enabled");
            assertEquals(SINGLE_BYTES, syscalls.read(fd, out.address(), SINGLE_BYTES));
            long after = out.getLong(SINGLE_VALUE);
            assertTrue(before <= self && self <= after, before + " <= " + self + " <= " + after);
        } finally {
            assertEquals(0, syscalls.munmapPerfPage(page));
            assertEquals(0, syscalls.close(fd));
        }
    }

    @Test
    void readingACounterAllocatesNothingOnTheHeap() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int fd = open(TASK_CLOCK, TIMES, 0, 0, -1);
        long page = syscalls.mmapPerfPage(fd);
        try {
            // The steady state, as the sampler's loop runs: until the JIT has compiled the path (escape analysis
            // included), code it has not compiled yet may box a value; a loaded machine compiles later, and a
            // move from one compiled tier to the next may allocate once more (208 bytes seen after a clean
            // round). So: three clean rounds in a row, within 50; a read that allocates never gives one.
            int rounds = 0;
            long lastAllocated = 0;
            for (int clean = 0; clean < 3; rounds++) {
                assertTrue(
                        rounds < 50,
                        "reading still allocates after " + rounds + " rounds of 10000 reads of"
                                + " read, selfRead, ioctl, getcpu, gettid: " + lastAllocated + " bytes in the last");
                lastAllocated = allocatedByReads(threads, fd, page);
                clean = lastAllocated == 0 ? clean + 1 : 0;
            }
        } finally {
            syscalls.munmapPerfPage(page);
            syscalls.close(fd);
        }
    }

    private long allocatedByReads(com.sun.management.ThreadMXBean threads, int fd, long page) {
        threads.getCurrentThreadAllocatedBytes();
        long before = threads.getCurrentThreadAllocatedBytes();
        readRepeatedly(fd, page);
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    @Test
    void addressOfRefusesAHeapBuffer() {
        NativeException e = assertThrows(NativeException.class, () -> syscalls.addressOf(ByteBuffer.allocate(8)));
        assertEquals(Errno.EINVAL, e.errno());
    }

    private void readRepeatedly(int fd, long page) {
        for (int i = 0; i < 10_000; i++) {
            syscalls.read(fd, out.address(), SINGLE_BYTES);
            syscalls.selfRead(page, fd, out.address());
            syscalls.ioctl(fd, PerfIoctl.RESET, 0);
            syscalls.getcpu();
            syscalls.gettid();
        }
    }

    private int open(long config, long readFormat, long flags, int pid, int groupFd) {
        new PerfEventAttr()
                .type(PerfEventAttr.TYPE_SOFTWARE)
                .config(config)
                .readFormat(readFormat)
                .flags(flags)
                .writeTo(attr.buffer());
        int fd = syscalls.perfEventOpen(attr.address(), pid, -1, groupFd, 0);
        assertTrue(fd >= 0, () -> "perf_event_open(software " + config + ", pid " + pid + "): " + Errno.name(fd));
        return fd;
    }

    private void readGroup(int leader, int groupBytes, long[] ids) {
        assertEquals(groupBytes, syscalls.read(leader, out.address(), groupBytes));
        assertEquals(ids.length, out.getLong(GROUP_NR));
        for (int i = 0; i < ids.length; i++) {
            assertEquals(ids[i], out.getLong(GROUP_MEMBERS + i * GROUP_MEMBER_BYTES + Long.BYTES), "id of member " + i);
        }
    }

    private long[] groupValues(int members) {
        long[] values = new long[members];
        for (int i = 0; i < members; i++) {
            values[i] = out.getLong(GROUP_MEMBERS + i * GROUP_MEMBER_BYTES);
        }
        return values;
    }

    private void assertGroupValues(long... expected) {
        assertArrayEquals(expected, groupValues(expected.length));
    }

    private static void burnCpu() {
        long x = 1;
        for (int i = 0; i < 5_000_000; i++) {
            x = x * 6364136223846793005L + i;
        }
        sink = x;
    }

    /**
     * Touches every page of a mapping made for the purpose: the first touch of each page of a new mapping faults,
     * always. (A direct buffer need not: once glibc freed one large block it serves the next from memory it
     * already touched, and counted no fault one run in a few.)
     */
    private static void touchFreshPages() {
        try {
            Path file = Files.createTempFile("perfpin-pages", ".bin");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                MappedByteBuffer pages = channel.map(FileChannel.MapMode.READ_WRITE, 0, 4 << 20);
                for (int i = 0; i < pages.capacity(); i += 4096) {
                    pages.put(i, (byte) 1);
                }
                sink = pages.get(4096);
            } finally {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int wordsFor(int cpus) {
        return (cpus + Long.SIZE - 1) / Long.SIZE;
    }

    private static String cpusAllowedList(int tid) throws IOException {
        Path status = Paths.get("/proc/self/task/" + tid + "/status");
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        throw new AssertionError("no Cpus_allowed_list in " + status);
    }

    /** The number of possible CPUs: one more than the highest in /sys/devices/system/cpu/possible. */
    private static int possibleCpus() throws IOException {
        long[] mask = parseCpuList(firstLine("/sys/devices/system/cpu/possible"));
        for (int word = mask.length - 1; word >= 0; word--) {
            if (mask[word] != 0) {
                return word * Long.SIZE + Long.SIZE - Long.numberOfLeadingZeros(mask[word]);
            }
        }
        return 0;
    }

    /**
     * Reads line by line: Files.readString on a procfs file, whose size reads as 0, returns only its
     * first byte (JDK 17 and 25).
     */
    private static String firstLine(String path) throws IOException {
        return Files.readAllLines(Paths.get(path)).get(0).trim();
    }

    /** The kernel's cpu list format, such as {@code 0-3,8,10-11}, as a mask of {@link CpuMasks#WORDS} words. */
    private static long[] parseCpuList(String list) {
        long[] mask = new long[CpuMasks.WORDS];
        for (String range : list.split(",")) {
            int dash = range.indexOf('-');
            int first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            int last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
            for (int cpu = first; cpu <= last; cpu++) {
                mask[cpu / Long.SIZE] |= 1L << (cpu % Long.SIZE);
            }
        }
        return mask;
    }
}
