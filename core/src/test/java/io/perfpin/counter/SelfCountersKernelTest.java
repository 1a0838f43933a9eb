package io.perfpin.counter;

import static io.perfpin.counter.CounterGroupKernelTest.CYCLES;
import static io.perfpin.counter.CounterGroupKernelTest.PAGE_FAULTS;
import static io.perfpin.counter.CounterGroupKernelTest.TASK_CLOCK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.apps.PageToucher;
import io.perfpin.apps.Spinner;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.DescriptorShare;
import io.perfpin.testkit.PerfEventDescriptors;
import io.perfpin.testkit.Threads;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SelfCountersKernelTest {
    private final Syscalls syscalls = Backends.syscalls();

    @Test
    void aThreadMeasuresItsOwnWorkAroundACall() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (SelfCounters self = SelfCounters.open(syscalls, List.of(TASK_CLOCK, PAGE_FAULTS, CYCLES))) {
            CounterSnapshot before = self.newSnapshot();
            CounterSnapshot after = self.newSnapshot();
            CounterSnapshot delta = self.newSnapshot();
            // Loaded before the window: loading their classes inside it faulted 5% more pages when this test ran alone.
            Spinner.spin(1);
            PageToucher.touch(PageToucher.PAGE_SIZE);
            long stolenBefore = StolenTime.nanos();
            assertEquals(0, self.read(before));
            long cpuBefore = threads.getCurrentThreadCpuTime();
            Spinner.spin(200_000_000L);
            long pages = PageToucher.touch(16 << 20);
            long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
            assertEquals(0, self.read(after));
            CounterSnapshot.delta(after, before, delta);

            long stolen = StolenTime.boundSince(stolenBefore);
            assertTrue(
                    delta.value(0) >= cpu * 0.95 && delta.value(0) <= cpu * 1.05 + stolen,
                    "task-clock " + delta.value(0) + " vs cpu " + cpu + " (+ at most " + stolen + " ns stolen)");
            assertTrue(Math.abs(delta.value(1) - pages) <= pages * 0.03, "faults " + delta.value(1) + " vs " + pages);
            // Software events have no hardware counter index: they are always read through read(2).
            int hardware = self.unsupported().isEmpty() ? 1 : 0;
            assertTrue(self.lastRdpmcReads() <= hardware);
        }
    }

    @Test
    void countersBeyondTheBudgetOpenNothingAndSayWhyUntilDescriptorsAreGivenBack() throws Exception {
        DescriptorBudget budget = DescriptorBudget.forThisProcess(DescriptorShare.parse("fds=2", "2"));
        long before = PerfEventDescriptors.ofThisProcess();
        try (SelfCounters first = SelfCounters.open(syscalls, List.of(TASK_CLOCK, PAGE_FAULTS), budget)) {
            try (SelfCounters beyond = SelfCounters.open(syscalls, List.of(TASK_CLOCK), budget)) {
                assertEquals(before + 2, PerfEventDescriptors.ofThisProcess(), "the second opened nothing");
                assertEquals(
                        List.of("task-clock: thread not counted: " + budget.reason() + " (EMFILE)"),
                        beyond.unsupported().stream()
                                .map(EventFailure::toString)
                                .collect(Collectors.toList()));
                CounterSnapshot snapshot = beyond.newSnapshot();
                assertEquals(0, beyond.read(snapshot));
                assertFalse(snapshot.isCounted(0));
            }
            assertEquals(List.of(), first.unsupported());
        }
        assertEquals(0, budget.held());
        try (SelfCounters again = SelfCounters.open(syscalls, List.of(TASK_CLOCK), budget)) {
            assertEquals(List.of(), again.unsupported(), "counted once the first gave its descriptors back");
            assertEquals(before + 1, PerfEventDescriptors.ofThisProcess());
        }
        assertEquals(before, PerfEventDescriptors.ofThisProcess());
    }

    @Test
    void onlyTheOwningThreadMayRead() throws Exception {
        try (SelfCounters self = SelfCounters.open(syscalls, List.of(TASK_CLOCK))) {
            Throwable[] thrown = new Throwable[1];
            Thread other = new Thread(
                    () -> thrown[0] = assertThrows(IllegalStateException.class, () -> self.read(self.newSnapshot())));
            other.start();
            Threads.join(other);
            assertTrue(thrown[0].getMessage().contains("read from"));
        }
    }
}
