package io.perfpin.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.PageToucher;
import io.perfpin.apps.Sleeper;
import io.perfpin.apps.Spinner;
import io.perfpin.event.EventParser;
import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.testkit.PerfEventDescriptors;
import io.perfpin.testkit.Threads;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Counter groups opened on real threads, counting what the real kernel saw. */
class CounterGroupKernelTest {
    static final EventParser EVENTS = new EventParser();
    static final EventSpec TASK_CLOCK = EVENTS.parse("task-clock");
    static final EventSpec PAGE_FAULTS = EVENTS.parse("page-faults");
    static final EventSpec CONTEXT_SWITCHES = EVENTS.parse("context-switches");
    static final EventSpec CPU_MIGRATIONS = EVENTS.parse("cpu-migrations");
    static final EventSpec MINOR_FAULTS = EVENTS.parse("minor-faults");
    static final EventSpec CYCLES = EVENTS.parse("cycles");
    static final EventSpec INSTRUCTIONS = EVENTS.parse("instructions");

    private final Syscalls syscalls = Backends.syscalls();

    @Test
    void pageFaultsMatchThePagesAThreadTouched() throws Exception {
        long[] touched = new long[1];
        try (TracedThread toucher = new TracedThread("toucher", () -> touched[0] = PageToucher.touch(64 << 20));
                CounterGroup counters =
                        CounterGroup.open(syscalls, toucher.tid(), List.of(PAGE_FAULTS, MINOR_FAULTS))) {
            toucher.runWork();
            CounterSnapshot snapshot = counters.newSnapshot();
            assertEquals(0, counters.read(snapshot));
            assertEquals(16384, touched[0]);
            assertWithin(16384, snapshot.value(0), 0.03, "page-faults");
            assertWithin(16384, snapshot.value(1), 0.03, "minor-faults");
            assertEquals(1.0, snapshot.coverage(0));
        }
    }

    @Test
    void everySleepIsAtLeastOneContextSwitch() throws Exception {
        try (TracedThread sleeper = new TracedThread("sleeper", () -> Sleeper.sleep(50, 1));
                CounterGroup counters = CounterGroup.open(syscalls, sleeper.tid(), List.of(CONTEXT_SWITCHES))) {
            sleeper.runWork();
            CounterSnapshot snapshot = counters.newSnapshot();
            counters.read(snapshot);
            assertTrue(snapshot.value(0) >= 50, "context switches " + snapshot.value(0) + " < 50 sleeps");
        }
    }

    @Test
    void aThreadBouncedBetweenCpusMigratesAndAPinnedOneDoesNot() throws Exception {
        assumeTrue(cpuAllowed(0) && cpuAllowed(1), "needs CPUs 0 and 1 in the allowed set");
        int flips = 20;
        java.util.concurrent.atomic.AtomicInteger runningOn = new java.util.concurrent.atomic.AtomicInteger(-1);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        try (TracedThread spinner = new TracedThread("bounced", () -> {
                    while (!stop.get()) {
                        Spinner.spin(100_000L);
                        runningOn.set((int) syscalls.getcpu());
                    }
                });
                CounterGroup counters = CounterGroup.open(syscalls, spinner.tid(), List.of(CPU_MIGRATIONS))) {
            Thread runner = new Thread(() -> {
                try {
                    spinner.runWork();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            runner.start();
            try {
                for (int i = 0; i < flips; i++) {
                    int target = i % 2;
                    assertEquals(0, syscalls.setAffinity(spinner.tid(), new long[] {1L << target}));
                    // Wait until it ran on the target: flips the scheduler never acted on would not migrate it.
                    for (int wait = 0; wait < 10_000 && runningOn.get() != target; wait++) {
                        Thread.sleep(1);
                    }
                    assertEquals(target, runningOn.get(), "the bounced thread runs where its affinity says");
                }
            } finally {
                stop.set(true); // a failed flip must not leave it spinning, pinned, for the tests after
                Threads.join(runner);
            }
            CounterSnapshot snapshot = counters.newSnapshot();
            counters.read(snapshot);
            assertTrue(
                    snapshot.value(0) >= flips - 1, "migrations " + snapshot.value(0) + " after " + flips + " flips");
        }
        // A thread pins itself, as perfpin's agent does, then counting starts.
        try (TracedThread pinned = new TracedThread(
                        "pinned", () -> assertEquals(0, syscalls.setAffinity(0, new long[] {1L})), () -> {
                            Spinner.spin(300_000_000L);
                            Sleeper.sleep(20, 1);
                        });
                CounterGroup counters =
                        CounterGroup.open(syscalls, pinned.tid(), List.of(CPU_MIGRATIONS, CONTEXT_SWITCHES))) {
            pinned.runWork();
            CounterSnapshot snapshot = counters.newSnapshot();
            counters.read(snapshot);
            assertEquals(0, snapshot.value(0), "a thread pinned to one CPU migrated");
            assertTrue(snapshot.value(1) >= 20, "the pinned thread slept, so it was switched out");
        }
    }

    @Test
    void taskClockIsTheThreadsCpuTime() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] cpuNanos = new long[1];
        long stolenBefore = StolenTime.nanos();
        try (TracedThread spinner = new TracedThread("spinner", () -> {
                    long start = threads.getCurrentThreadCpuTime();
                    Spinner.spin(400_000_000L);
                    cpuNanos[0] = threads.getCurrentThreadCpuTime() - start;
                });
                CounterGroup counters = CounterGroup.open(syscalls, spinner.tid(), List.of(TASK_CLOCK, PAGE_FAULTS))) {
            spinner.runWork();
            CounterSnapshot snapshot = counters.newSnapshot();
            counters.read(snapshot);
            long stolen = StolenTime.boundSince(stolenBefore);
            assertTrue(
                    snapshot.value(0) >= cpuNanos[0] * 0.95 && snapshot.value(0) <= cpuNanos[0] * 1.05 + stolen,
                    "task-clock " + snapshot.value(0) + " against ThreadMXBean CPU time " + cpuNanos[0] + " (+ at most "
                            + stolen + " ns stolen by the hypervisor)");
        }
    }

    @Test
    void hardwareEventsWithoutAPmuAreUnsupportedWithAReasonWhileSoftwareEventsCount() throws Exception {
        try (TracedThread spinner = new TracedThread("mixed", () -> Spinner.spin(50_000_000L));
                CounterGroup counters = CounterGroup.open(
                        syscalls, spinner.tid(), List.of(CYCLES, TASK_CLOCK, INSTRUCTIONS, PAGE_FAULTS))) {
            spinner.runWork();
            CounterSnapshot snapshot = counters.newSnapshot();
            counters.read(snapshot);
            assertTrue(snapshot.isCounted(1) && snapshot.value(1) > 0, "task-clock counts");
            assertTrue(snapshot.isCounted(3), "page-faults counts");
            if (counters.unsupported().isEmpty()) {
                // A machine with a PMU: the hardware events count for real.
                assertTrue(snapshot.value(0) > 0 && snapshot.value(2) > 0, "cycles and instructions count");
                return;
            }
            assertEquals(
                    List.of("cycles", "instructions"),
                    counters.unsupported().stream()
                            .map(f -> f.event().name())
                            .collect(java.util.stream.Collectors.toList()));
            for (EventFailure failure : counters.unsupported()) {
                assertEquals(Errno.ENOENT, failure.errno(), failure.toString());
                assertTrue(failure.reason().contains("no hardware PMU"), failure.reason());
            }
            assertFalse(snapshot.isCounted(0));
            assertFalse(snapshot.isCounted(2));
        }
    }

    @Test
    void aLaterThreadIsToldWhatTheKernelRefusedEveryThreadWithoutAskingAgain() throws Exception {
        RefusedEvents refused = new RefusedEvents();
        DescriptorBudget budget = DescriptorBudget.unbounded();
        List<EventSpec> events = List.of(PAGE_FAULTS, CYCLES, TASK_CLOCK, INSTRUCTIONS);
        try (TracedThread first = new TracedThread("first", () -> {});
                TracedThread second = new TracedThread("second", () -> PageToucher.touch(64 * PageToucher.PAGE_SIZE));
                CounterGroup one = CounterGroup.open(syscalls, first.tid(), events, refused, budget);
                CounterGroup two = CounterGroup.open(syscalls, second.tid(), events, refused, budget)) {
            assertEquals(one.unsupported().toString(), two.unsupported().toString(), "the same events, same reasons");
            second.runWork();
            CounterSnapshot snapshot = two.newSnapshot();
            two.read(snapshot);
            assertTrue(snapshot.value(0) >= 64, "page-faults still count: " + snapshot.value(0));
            for (EventFailure failure : two.unsupported()) {
                assertTrue(failure.index() == 1 || failure.index() == 3, "indexed as asked: " + failure);
            }
        }
    }

    @Test
    void aThreadThatDidNotRunWhileCountedHasZeroCountsAndRefusedEventsNone() throws Exception {
        try (TracedThread idle = new TracedThread("idle", () -> {});
                CounterGroup counters =
                        CounterGroup.open(syscalls, idle.asleepTid(), List.of(CYCLES, CONTEXT_SWITCHES))) {
            CounterSnapshot snapshot = counters.newSnapshot();
            counters.read(snapshot); // the thread waits on a latch all along
            assertTrue(snapshot.isCounted(1));
            assertEquals(0, snapshot.value(1));
            assertEquals(counters.unsupported().isEmpty(), snapshot.isCounted(0));
        }
    }

    @Test
    void countsOfAThreadThatEndedStayReadableAndCloseReleasesEveryDescriptor() throws Exception {
        long before = PerfEventDescriptors.ofThisProcess();
        TracedThread toucher = new TracedThread("short-lived", () -> PageToucher.touch(4 << 20));
        CounterGroup counters =
                CounterGroup.open(syscalls, toucher.tid(), List.of(PAGE_FAULTS, TASK_CLOCK, CONTEXT_SWITCHES));
        toucher.runWork();
        toucher.close();
        CounterSnapshot snapshot = counters.newSnapshot();
        assertEquals(0, counters.read(snapshot));
        assertTrue(snapshot.value(0) >= 1024, "page faults of the ended thread: " + snapshot.value(0));
        counters.close();
        assertEquals(before, PerfEventDescriptors.ofThisProcess());
    }

    @Test
    void aThreadThatNoLongerExistsIsReportedAsExited() throws Exception {
        TracedThread ended = new TracedThread("ended", () -> {});
        int tid = ended.tid();
        ended.close();
        ended.awaitKernelExit();
        try (CounterGroup counters = CounterGroup.open(syscalls, tid, List.of(TASK_CLOCK))) {
            assertEquals(1, counters.unsupported().size());
            assertEquals(Errno.ESRCH, counters.unsupported().get(0).errno());
            assertTrue(counters.unsupported().get(0).reason().contains("has exited"));
        }
    }

    @Test
    void aPmuThatCannotSeparatePrivilegeLevelsCountsByDefault() throws Exception {
        assumeTrue(Files.isDirectory(Paths.get("/sys/bus/event_source/devices/msr/events")), "no msr PMU here");
        EventSpec tsc = EVENTS.parse("msr/tsc/");
        try (TracedThread spinner = new TracedThread("tsc", () -> Spinner.spin(20_000_000L));
                CounterGroup counters = CounterGroup.open(syscalls, spinner.tid(), List.of(tsc))) {
            spinner.runWork();
            CounterSnapshot snapshot = counters.newSnapshot();
            counters.read(snapshot);
            assertEquals(List.of(), counters.unsupported());
            assertTrue(snapshot.value(0) > 0, "msr/tsc/ counts");
        }
    }

    private static void assertWithin(double expected, double actual, double fraction, String what) {
        assertTrue(
                Math.abs(actual - expected) <= expected * fraction,
                what + ": " + actual + " is not within " + (fraction * 100) + "% of " + expected);
    }

    private boolean cpuAllowed(int cpu) {
        long[] mask = new long[64];
        return syscalls.getAffinity(0, mask) > 0 && (mask[cpu / 64] & (1L << (cpu % 64))) != 0;
    }
}
