package io.perfpin.nativeio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The simulated PMU read as the kernel's ABI says a PMU is read: every read_format layout, group reads, ids from
 * the kernel, refusals with the x86 driver's errno, and multiplexing whose scaled counts give back the whole.
 * Its counts stand on the thread's real task-clock, which each test reads beside it from the kernel.
 */
class SimulatedPmuTest {
    private static final long TASK_CLOCK = 1;
    private static final long PAGE_FAULTS = 2;
    private static final long CONTEXT_SWITCHES = 3;
    private static final long FORMAT_LOST = 1L << 4;
    private static final long TIMES = PerfEventAttr.FORMAT_TOTAL_TIME_ENABLED | PerfEventAttr.FORMAT_TOTAL_TIME_RUNNING;
    private static final long GROUP = PerfEventAttr.FORMAT_GROUP | PerfEventAttr.FORMAT_ID | TIMES;
    private static final double IPC = 2.0;

    private static volatile long sink;

    private final List<Integer> opened = new ArrayList<>();
    private Syscalls kernel;
    private SimulatedPmu pmu;
    private NativeBuffer attr;
    private NativeBuffer out;

    @BeforeEach
    void simulate() {
        kernel = Backends.syscalls();
        pmu = SimulatedPmu.over(kernel, PmuModel.named("skylake"), IPC, null);
        attr = NativeBuffer.allocate(kernel, PerfEventAttr.SIZE);
        out = NativeBuffer.allocate(kernel, 1024);
    }

    @AfterEach
    void closeAll() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            pmu.close(opened.get(i));
        }
    }

    @Test
    void countsCyclesAndInstructionsFromTheThreadsTaskClock() {
        int leader = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CPU_CYCLES, GROUP, -1);
        int instructions = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.INSTRUCTIONS, GROUP, leader);
        int clock = open(PerfEventAttr.TYPE_SOFTWARE, TASK_CLOCK, GROUP, leader);
        assertEquals(8 * (3 + 3 * 2), pmu.read(leader, out.address(), 1024));
        long[] before = {out.getLong(8), out.getLong(16), out.getLong(24), out.getLong(40), out.getLong(56)};
        burnCpu();

        assertEquals(8 * (3 + 3 * 2), pmu.read(leader, out.address(), 1024));
        assertEquals(3, out.getLong(0), "nr");
        long enabled = out.getLong(8) - before[0];
        assertTrue(enabled > 0, "time enabled");
        assertEquals(enabled, out.getLong(16) - before[1], 1, "room on the PMU for all three: never rotated out");
        long cycles = out.getLong(24) - before[2];
        long instructionCount = out.getLong(40) - before[3];
        long taskClock = out.getLong(56) - before[4];
        assertEquals(idOf(leader), out.getLong(32), "ids are the kernel's");
        assertEquals(idOf(instructions), out.getLong(48));
        assertEquals(idOf(clock), out.getLong(64));
        assertEquals(3.0 * taskClock, cycles, 3.0 * taskClock * 0.001, "3 GHz while the thread ran");
        assertEquals(IPC * cycles, instructionCount, IPC * cycles * 0.001, "the IPC asked for");
    }

    /**
     * DTLB_LOAD_MISSES.WALK_ACTIVE as Skylake encodes it (event 0x08, umask 0x10, cmask 1), opened as
     * {@code cpu/event=0x08,umask=0x10,cmask=1/} is, on the model's cpu PMU, counts cycles with a walk in progress: a
     * share of the cycles, 30 for each walk at the misses-per-kilo-instruction asked for.
     */
    @Test
    void aCounterMaskedRawEventCountsCyclesInWhichItsConditionHolds() {
        SimulatedPmu walking = SimulatedPmu.over(kernel, PmuModel.named("skylake"), IPC, 1.5);
        new PerfEventAttr()
                .type(PerfEventAttr.TYPE_HARDWARE)
                .config(PmuModel.CPU_CYCLES)
                .readFormat(GROUP)
                .writeTo(attr.buffer());
        int leader = walking.perfEventOpen(attr.address(), 0, -1, -1, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
        assertTrue(leader >= 0, () -> Errno.name(leader));
        try {
            new PerfEventAttr()
                    .type(walking.model().cpuPmuType())
                    .config(0x1001008)
                    .readFormat(GROUP)
                    .writeTo(attr.buffer());
            int walk = walking.perfEventOpen(attr.address(), 0, -1, leader, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
            assertTrue(walk >= 0, () -> Errno.name(walk));
            try {
                assertEquals(8 * (3 + 2 * 2), walking.read(leader, out.address(), 1024));
                long cycles = out.getLong(24);
                long walkCycles = out.getLong(40);
                burnCpu();
                assertEquals(8 * (3 + 2 * 2), walking.read(leader, out.address(), 1024));
                double share = (double) (out.getLong(40) - walkCycles) / (out.getLong(24) - cycles);
                assertEquals(IPC * 1.5 / 1000 * 30, share, 0.001, "walk cycles per cycle");
            } finally {
                walking.close(walk);
            }
        } finally {
            walking.close(leader);
        }
    }

    @Test
    void readsEveryReadFormatOfASingleEvent() {
        int bare = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CPU_CYCLES, 0, -1);
        int timed = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CPU_CYCLES, TIMES, -1);
        int all =
                open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CPU_CYCLES, TIMES | PerfEventAttr.FORMAT_ID | (1L << 4), -1);
        burnCpu();

        assertEquals(8, pmu.read(bare, out.address(), 8));
        assertTrue(out.getLong(0) > 0);
        assertEquals(24, pmu.read(timed, out.address(), 24));
        assertTrue(out.getLong(0) > 0 && out.getLong(8) > 0 && out.getLong(16) == out.getLong(8));
        assertEquals(40, pmu.read(all, out.address(), 64));
        assertEquals(idOf(all), out.getLong(24));
        assertEquals(0, out.getLong(32), "lost");
        assertEquals(-Errno.ENOSPC, pmu.read(all, out.address(), 39), "a buffer too short for the format");
        assertEquals(0, pmu.selfRead(pmu.mmapPerfPage(timed), timed, out.address()), "no page: read(2)");
        assertTrue(out.getLong(0) > 0);
    }

    /**
     * Group reads in the other layouts read(2) has: without the times (nr, then each value), with
     * {@code PERF_FORMAT_LOST} (value, id, lost per member), each one byte short ENOSPC; sized as the kernel sizes
     * the same layout for a group of its own software events. A software event is read in the caller's format too.
     */
    @Test
    void readsGroupsWithoutTheTimesOrWithLostAndSoftwareEventsInTheCallersFormat() {
        long bare = PerfEventAttr.FORMAT_GROUP;
        int leader = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CPU_CYCLES, bare, -1);
        open(PerfEventAttr.TYPE_SOFTWARE, TASK_CLOCK, bare, leader);
        assertEquals(8 * (1 + 2), kernelGroupBytes(bare));
        assertEquals(8 * (1 + 2), pmu.read(leader, out.address(), 1024));
        long cycles = out.getLong(8);
        long taskClock = out.getLong(16);
        burnCpu();
        assertEquals(24, pmu.read(leader, out.address(), 24));
        assertEquals(2, out.getLong(0), "nr, then each member's value and nothing else");
        long ran = out.getLong(16) - taskClock;
        assertEquals(3.0 * ran, out.getLong(8) - cycles, 3.0 * ran * 0.01, "cycles beside task-clock");
        assertEquals(-Errno.ENOSPC, pmu.read(leader, out.address(), 23), "a group read a byte short");

        long withLost = GROUP | FORMAT_LOST;
        int counted = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.INSTRUCTIONS, withLost, -1);
        int faults = open(PerfEventAttr.TYPE_SOFTWARE, PAGE_FAULTS, withLost, counted);
        int bytes = kernelGroupBytes(withLost);
        assertEquals(8 * (3 + 3 * 2), bytes);
        assertEquals(bytes, pmu.read(counted, out.address(), bytes));
        assertEquals(2, out.getLong(0));
        assertTrue(out.getLong(24) > 0, "instructions");
        assertEquals(idOf(counted), out.getLong(32));
        assertEquals(0, out.getLong(40), "nothing lost: counting, not sampling");
        assertEquals(idOf(faults), out.getLong(56));
        assertEquals(0, out.getLong(64));
        assertEquals(-Errno.ENOSPC, pmu.read(counted, out.address(), bytes - 1));

        int clock = open(PerfEventAttr.TYPE_SOFTWARE, TASK_CLOCK, 0, -1);
        assertEquals(8, pmu.read(clock, out.address(), 8), "only the value, as asked");
        assertTrue(out.getLong(0) > 0);
    }

    /**
     * A member's descriptor closed by another path than the simulation's close: the kernel takes the member out of
     * its group (perf_group_detach) and reads the group without it, which the kernel's own software group shows;
     * the simulation reads the same, and the counter the member held is free, so a group that had to share the
     * PMU with another no longer does.
     */
    @Test
    void aMemberClosedBehindItsBackLeavesItsGroupAsInTheKernel() {
        int kernelLeader = kernelOpen(TASK_CLOCK, -1);
        int kernelMember = kernelOpen(PAGE_FAULTS, kernelLeader);
        int kernelOther = kernelOpen(CONTEXT_SWITCHES, kernelLeader);
        try {
            assertEquals(0, kernel.close(kernelMember));
            assertEquals(8 * (3 + 2 * 2), kernel.read(kernelLeader, out.address(), 1024), "the kernel's group");
            assertEquals(2, out.getLong(0));
            assertEquals(idOf(kernelOther), out.getLong(48));
        } finally {
            kernel.close(kernelOther);
            kernel.close(kernelLeader);
        }

        int leader = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CPU_CYCLES, GROUP, -1);
        int[] members = new int[4];
        for (int i = 0; i < members.length; i++) {
            members[i] = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.BRANCH_MISSES, GROUP, leader);
        }
        int clock = open(PerfEventAttr.TYPE_SOFTWARE, TASK_CLOCK, GROUP, leader);
        int other = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CACHE_MISSES, GROUP, -1);
        assertEquals(8 * (3 + 2 * 6), pmu.read(leader, out.address(), 1024));
        assertEquals(0.5, share(leader, 6), 0.01, "five general-purpose events on four counters: half the time each");

        opened.remove(Integer.valueOf(members[1]));
        assertEquals(0, kernel.close(members[1]), "closed behind the simulation's back");
        assertEquals(8 * (3 + 2 * 5), pmu.read(leader, out.address(), 1024), "the group without it, no error");
        assertEquals(5, out.getLong(0));
        assertEquals(idOf(leader), out.getLong(32));
        assertEquals(idOf(members[0]), out.getLong(48));
        assertEquals(idOf(members[2]), out.getLong(64));
        assertEquals(idOf(clock), out.getLong(112));
        assertEquals(1.0, share(leader, 5), 0.001, "its counter free: both groups fit together now");
        assertEquals(1.0, share(other, 1), 0.001);
    }

    @Test
    void refusesWhatASkylakeCoreRefuses() {
        assertEquals(-Errno.ENOENT, tryOpen(PerfEventAttr.TYPE_HARDWARE, PmuModel.STALLED_CYCLES_FRONTEND, -1));
        assertEquals(-Errno.EINVAL, tryOpen(PerfEventAttr.TYPE_HARDWARE, PmuModel.HW_MAX, -1));
        assertEquals(
                -Errno.ENOENT,
                tryOpen(
                        PerfEventAttr.TYPE_HW_CACHE,
                        PmuModel.L1D | PmuModel.OP_PREFETCH << 8 | PmuModel.RESULT_MISS << 16,
                        -1));
        assertEquals(-Errno.EINVAL, tryOpen(PerfEventAttr.TYPE_HW_CACHE, PmuModel.L1I | PmuModel.OP_WRITE << 8, -1));
        assertEquals(-Errno.EINVAL, tryOpen(PerfEventAttr.TYPE_HW_CACHE, PmuModel.CACHE_IDS, -1));

        int leader = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.BRANCH_MISSES, GROUP, -1);
        for (int i = 0; i < 3; i++) {
            open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CACHE_MISSES, GROUP, leader);
        }
        assertEquals(
                -Errno.EINVAL,
                tryOpen(PerfEventAttr.TYPE_RAW, 0x1d3, leader),
                "a fifth general-purpose event in one group never fits four counters");
        open(PerfEventAttr.TYPE_HARDWARE, PmuModel.REF_CPU_CYCLES, GROUP, leader);
        assertEquals(
                -Errno.EINVAL,
                tryOpen(PerfEventAttr.TYPE_HARDWARE, PmuModel.REF_CPU_CYCLES, leader),
                "ref-cycles has one fixed counter and no other");
        open(PerfEventAttr.TYPE_SOFTWARE, PAGE_FAULTS, GROUP, leader);
    }

    @Test
    void rotatesGroupsThatDoNotFitTogetherAndScalingGivesBackTheWhole() {
        int reference = open(PerfEventAttr.TYPE_SOFTWARE, TASK_CLOCK, TIMES, -1);
        int[] leaders = new int[3];
        int[] members = new int[3];
        for (int g = 0; g < leaders.length; g++) {
            leaders[g] = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CACHE_MISSES, GROUP, -1);
            members[g] =
                    open(PerfEventAttr.TYPE_HW_CACHE, PmuModel.DTLB | PmuModel.RESULT_MISS << 16, GROUP, leaders[g]);
        }
        long[][] start = new long[leaders.length][];
        for (int g = 0; g < leaders.length; g++) {
            assertEquals(8 * (3 + 2 * 2), pmu.read(leaders[g], out.address(), 1024));
            start[g] = new long[] {out.getLong(8), out.getLong(16), out.getLong(24)};
        }
        assertEquals(24, pmu.read(reference, out.address(), 24));
        long before = out.getLong(0);
        // Long enough that the reads around it, which the groups' windows and the reference's take in differently
        // (hundreds of microseconds where they load or compile code under load), stay well inside the 1% below.
        burnCpuFor(TimeUnit.MILLISECONDS.toNanos(300));
        long[] scaled = new long[leaders.length];
        for (int g = 0; g < leaders.length; g++) {
            assertEquals(8 * (3 + 2 * 2), pmu.read(leaders[g], out.address(), 1024));
            long enabled = out.getLong(8) - start[g][0];
            long running = out.getLong(16) - start[g][1];
            // Six general-purpose events on four counters: two of the three groups on at each tick.
            assertEquals(2.0 / 3, (double) running / enabled, 0.001, "share of group " + g);
            scaled[g] = Math.round((out.getLong(24) - start[g][2]) * (double) enabled / running);
        }
        assertEquals(24, pmu.read(reference, out.address(), 24));
        long ran = out.getLong(0) - before;
        double rate = pmu.model()
                .ratePerNanosecond(PerfEventAttr.TYPE_HARDWARE, PmuModel.CACHE_MISSES, threadComm(), IPC, null);
        for (int g = 0; g < leaders.length; g++) {
            assertEquals(
                    rate * ran,
                    scaled[g],
                    rate * ran * 0.01,
                    "scaled cache-misses of group " + g + " at " + rate + " a nanosecond of " + ran
                            + " ns of task-clock");
        }

        // The kernel makes a closed leader's members groups of their own: one event still competes.
        pmu.close(leaders[2]);
        opened.remove(Integer.valueOf(leaders[2]));
        assertEquals(8 * (3 + 2), pmu.read(members[2], out.address(), 1024), "a group of one now");
        assertEquals(8 * (3 + 2 * 2), pmu.read(leaders[0], out.address(), 1024));
        long enabledBefore = out.getLong(8);
        long runningBefore = out.getLong(16);
        burnCpu();
        pmu.read(leaders[0], out.address(), 1024);
        double share = (double) (out.getLong(16) - runningBefore) / (out.getLong(8) - enabledBefore);
        assertTrue(share > 0.5 && share < 1, "five events on four counters still rotate: " + share);

        pmu.close(members[2]);
        opened.remove(Integer.valueOf(members[2]));
        assertEquals(8 * (3 + 2 * 2), pmu.read(leaders[0], out.address(), 1024));
        long enabledThen = out.getLong(8);
        long runningThen = out.getLong(16);
        burnCpu();
        pmu.read(leaders[0], out.address(), 1024);
        assertEquals(
                out.getLong(8) - enabledThen,
                out.getLong(16) - runningThen,
                1_000,
                "with a group closed, the two left fit together and run whenever they are enabled");
    }

    @Test
    void countsAnotherThreadByItsTidAndPassesSoftwareEventsThrough() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        int[] tid = new int[1];
        Thread worker = new Thread(
                () -> {
                    tid[0] = kernel.gettid();
                    started.countDown();
                    try {
                        if (go.await(30, TimeUnit.SECONDS)) {
                            burnCpu();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "sim-worker");
        worker.start();
        try {
            assertTrue(started.await(30, TimeUnit.SECONDS));
            int cycles = openFor(tid[0], PerfEventAttr.TYPE_HARDWARE, PmuModel.CPU_CYCLES, TIMES);
            int clock = openFor(tid[0], PerfEventAttr.TYPE_SOFTWARE, TASK_CLOCK, TIMES);
            go.countDown();
            worker.join(30_000);
            assertEquals(24, pmu.read(clock, out.address(), 24));
            long taskClock = out.getLong(0);
            assertEquals(out.getLong(8), out.getLong(16), "a software event alone is the kernel's, never rotated");
            assertEquals(24, pmu.read(cycles, out.address(), 24));
            assertEquals(3.0 * taskClock, out.getLong(0), 3.0 * taskClock * 0.01, "the worker's cycles");
        } finally {
            go.countDown();
            worker.join(30_000);
        }
    }

    @Test
    void resetZeroesTheCountsAndKeepsTheTimes() {
        int leader = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CPU_CYCLES, GROUP, -1);
        open(PerfEventAttr.TYPE_HARDWARE, PmuModel.INSTRUCTIONS, GROUP, leader);
        burnCpu();
        pmu.read(leader, out.address(), 1024);
        long enabled = out.getLong(8);
        assertTrue(out.getLong(24) > 0);
        assertEquals(0, pmu.ioctl(leader, PerfIoctl.RESET, PerfIoctl.FLAG_GROUP));
        pmu.read(leader, out.address(), 1024);
        assertTrue(out.getLong(8) >= enabled, "times go on");
        assertTrue(out.getLong(24) < 3.0 * 1_000_000, "cycles start again from nothing: " + out.getLong(24));
    }

    @Test
    void onlyThePropertySwitchesItOn() {
        Syscalls real = Backends.syscalls();
        assertSame(real, Backends.simulatedIfAsked(real, null, null, null));
        assertNull(real.simulatedPmu());
        assertEquals(
                "simulated skylake",
                Backends.simulatedIfAsked(real, "skylake", "1.5", "8").simulatedPmu());
        BackendUnavailableException model = assertThrows(
                BackendUnavailableException.class, () -> Backends.simulatedIfAsked(real, "zen4", null, null));
        assertEquals("-Dperfpin.simulated-pmu=zen4 names no simulated PMU; allowed: skylake", model.getMessage());
        BackendUnavailableException ipc = assertThrows(
                BackendUnavailableException.class, () -> Backends.simulatedIfAsked(real, "skylake", "fast", null));
        assertEquals(
                "-Dperfpin.simulated-pmu.ipc=fast is not an instructions-per-cycle figure; allowed: a number"
                        + " above 0 and below 100",
                ipc.getMessage());
        assertThrows(BackendUnavailableException.class, () -> Backends.simulatedIfAsked(real, "skylake", null, "-1"));
    }

    /**
     * A group read through a member's descriptor has the leader's times, as the kernel's perf_read_group writes them,
     * not the member's own. Here the leader counted half the time while another group shared the counters, then on
     * its own; a member opened after that has been on the counters all its life, so that its own time running would
     * be more than its leader's: read through it, the group's times are the leader's, never past what a read through
     * the leader just after gives. The kernel reads a group of software events through a member the same way.
     */
    @Test
    void aGroupReadThroughAMemberHasTheLeadersTimes() {
        int leader = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.CACHE_MISSES, GROUP, -1);
        int clockLeader = open(PerfEventAttr.TYPE_SOFTWARE, TASK_CLOCK, GROUP, -1);
        // Four general-purpose events: with the leader's, one more than the four counters, so the two groups take
        // turns, each on half the time.
        List<Integer> rival =
                new ArrayList<>(List.of(open(PerfEventAttr.TYPE_HARDWARE, PmuModel.BRANCH_MISSES, GROUP, -1)));
        for (int i = 0; i < 3; i++) {
            rival.add(open(PerfEventAttr.TYPE_HARDWARE, PmuModel.BRANCH_MISSES, GROUP, rival.get(0)));
        }
        burnCpu();
        for (int i = rival.size() - 1; i >= 0; i--) {
            assertEquals(0, pmu.close(rival.get(i)));
            opened.remove(rival.get(i));
        }
        assertEquals(8 * (3 + 2), pmu.read(clockLeader, out.address(), 1024));
        long[] clockTimes = {out.getLong(8), out.getLong(16)};

        int member = open(PerfEventAttr.TYPE_HARDWARE, PmuModel.BRANCH_MISSES, GROUP, leader);
        assertEquals(8 * (3 + 2 * 2), pmu.read(member, out.address(), 1024));
        long[] throughMember = {out.getLong(8), out.getLong(16)};
        assertEquals(idOf(leader), out.getLong(32), "the leader first");
        assertEquals(8 * (3 + 2 * 2), pmu.read(leader, out.address(), 1024));
        assertTrue(
                out.getLong(8) >= throughMember[0] && out.getLong(16) >= throughMember[1],
                "through the member " + throughMember[0] + " enabled, " + throughMember[1] + " running; through the"
                        + " leader just after " + out.getLong(8) + ", " + out.getLong(16));
        assertTrue(out.getLong(16) < out.getLong(8), "the leader was rotated out a while: " + out.getLong(16));

        int faults = open(PerfEventAttr.TYPE_SOFTWARE, PAGE_FAULTS, GROUP, clockLeader);
        assertEquals(8 * (3 + 2 * 2), kernel.read(faults, out.address(), 1024));
        assertTrue(
                out.getLong(8) >= clockTimes[0] && out.getLong(16) >= clockTimes[1],
                "the kernel's own read through a member: its leader's times, from before the member was opened");
    }

    private int open(int type, long config, long format, int groupFd) {
        int fd = tryOpen(type, config, format, groupFd);
        assertTrue(fd >= 0, () -> "open type " + type + " config " + config + ": " + Errno.name(fd));
        opened.add(fd);
        return fd;
    }

    private int tryOpen(int type, long config, int groupFd) {
        int fd = tryOpen(type, config, GROUP, groupFd);
        if (fd >= 0) {
            opened.add(fd);
        }
        return fd;
    }

    private int tryOpen(int type, long config, long format, int groupFd) {
        new PerfEventAttr().type(type).config(config).readFormat(format).writeTo(attr.buffer());
        return pmu.perfEventOpen(attr.address(), 0, -1, groupFd, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
    }

    private int openFor(int tid, int type, long config, long format) {
        new PerfEventAttr().type(type).config(config).readFormat(format).writeTo(attr.buffer());
        int fd = pmu.perfEventOpen(attr.address(), tid, -1, -1, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
        assertTrue(fd >= 0, () -> "open for tid " + tid + ": " + Errno.name(fd));
        opened.add(fd);
        return fd;
    }

    /** The share of the time a burst of work that the group of {@code members} was on the PMU: running / enabled. */
    private double share(int leader, int members) {
        assertEquals(8 * (3 + 2 * members), pmu.read(leader, out.address(), 1024));
        long enabled = out.getLong(8);
        long running = out.getLong(16);
        burnCpu();
        assertEquals(8 * (3 + 2 * members), pmu.read(leader, out.address(), 1024));
        return (double) (out.getLong(16) - running) / (out.getLong(8) - enabled);
    }

    /** The bytes the kernel's read(2) gives for a group of two software events read in {@code format}. */
    private int kernelGroupBytes(long format) {
        int leader = kernelOpen(TASK_CLOCK, format, -1);
        int member = kernelOpen(PAGE_FAULTS, format, leader);
        try {
            return (int) kernel.read(leader, out.address(), 1024);
        } finally {
            kernel.close(member);
            kernel.close(leader);
        }
    }

    private int kernelOpen(long config, int groupFd) {
        return kernelOpen(config, GROUP, groupFd);
    }

    /** A software event of this thread opened on the kernel itself, for the ABI the simulation follows. */
    private int kernelOpen(long config, long format, int groupFd) {
        new PerfEventAttr()
                .type(PerfEventAttr.TYPE_SOFTWARE)
                .config(config)
                .readFormat(format)
                .writeTo(attr.buffer());
        int fd = kernel.perfEventOpen(attr.address(), 0, -1, groupFd, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
        assertTrue(fd >= 0, () -> "open software " + config + " on the kernel: " + Errno.name(fd));
        return fd;
    }

    private long idOf(int fd) {
        NativeBuffer id = NativeBuffer.allocate(kernel, 8);
        assertEquals(0, pmu.ioctl(fd, PerfIoctl.ID, id.address()));
        return id.getLong(0);
    }

    private static String threadComm() {
        try {
            return Files.readString(Path.of("/proc/thread-self/comm")).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Burns at least {@code nanos} of this thread's CPU time, as the JVM counts it. */
    private static void burnCpuFor(long nanos) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isCurrentThreadCpuTimeSupported(), "this JVM tells a thread's CPU time");
        long until = threads.getCurrentThreadCpuTime() + nanos;
        do {
            burnCpu();
        } while (threads.getCurrentThreadCpuTime() < until);
    }

    private static void burnCpu() {
        long x = 1;
        for (int i = 0; i < 20_000_000; i++) {
            x = x * 6364136223846793005L + i;
        }
        sink = x;
    }
}
