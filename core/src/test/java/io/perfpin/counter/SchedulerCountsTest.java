package io.perfpin.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Backends;
import io.perfpin.testkit.Threads;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The scheduler's counts of this thread, read from /proc, move as the thread runs, sleeps and touches pages. */
class SchedulerCountsTest {
    private static final long PID = ProcessHandle.current().pid();
    private static final int PAGES = 256;

    @Test
    void eachSchedEventHasItsCountAndModifiedOrOtherEventsHaveNone() {
        EventList sched = EventList.parse("sched", new EventParser());
        for (EventSpec event : sched.events()) {
            assertTrue(SchedulerCounts.of(event).isPresent(), event.name());
        }
        EventList others = EventList.parse("task-clock:u,page-faults:k,cpu-clock,cycles", new EventParser());
        for (EventSpec event : others.events()) {
            assertEquals(Optional.empty(), SchedulerCounts.of(event), event.name());
        }
    }

    @Test
    void countsGrowWithWhatTheThreadDoes() throws Exception {
        int tid = Backends.syscalls().gettid();
        SchedulerCounts.Reading before = new SchedulerCounts.Reading(PID, tid);
        long[] then = counts(before);

        for (int i = 0; i < 20; i++) {
            Thread.sleep(1);
        }
        // A mapping made for the purpose: the first touch of each of its pages faults, always (a direct buffer
        // may reuse heap already touched).
        Path file = Files.createTempFile("perfpin-pages", ".bin");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer pages = channel.map(FileChannel.MapMode.READ_WRITE, 0, PAGES * 4096L);
            for (int page = 0; page < PAGES; page++) {
                pages.put(page * 4096, (byte) 1);
            }
        } finally {
            Files.delete(file);
        }
        long spinUntil = System.nanoTime() + 20_000_000L;
        while (System.nanoTime() < spinUntil) {
            Thread.onSpinWait();
        }

        long[] now = counts(new SchedulerCounts.Reading(PID, tid));
        assertTrue(now[SchedulerCounts.TASK_CLOCK.ordinal()] > then[SchedulerCounts.TASK_CLOCK.ordinal()]);
        assertTrue(
                now[SchedulerCounts.CONTEXT_SWITCHES.ordinal()] - then[SchedulerCounts.CONTEXT_SWITCHES.ordinal()]
                        >= 20,
                "each sleep blocks once at least");
        assertTrue(
                now[SchedulerCounts.PAGE_FAULTS.ordinal()] - then[SchedulerCounts.PAGE_FAULTS.ordinal()] >= PAGES,
                "each fresh page faults once at least");
        assertEquals(
                now[SchedulerCounts.PAGE_FAULTS.ordinal()],
                now[SchedulerCounts.MINOR_FAULTS.ordinal()] + now[SchedulerCounts.MAJOR_FAULTS.ordinal()]);
    }

    @Test
    void aThreadThatIsGoneHasNoCounts() throws Exception {
        int[] tid = new int[1];
        Thread ended = new Thread(() -> tid[0] = Backends.syscalls().gettid());
        ended.start();
        Threads.join(ended);
        // join() returns once the Java thread is done; the kernel's thread, and its /proc files, go a moment later.
        java.nio.file.Path task = java.nio.file.Path.of("/proc/self/task/" + tid[0]);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (java.nio.file.Files.exists(task)) {
            assertTrue(System.nanoTime() < deadline, task + " still there 30 s after join()");
            Thread.sleep(1);
        }
        assertEquals(OptionalLong.empty(), new SchedulerCounts.Reading(PID, tid[0]).count(SchedulerCounts.TASK_CLOCK));
    }

    /** Every count, by ordinal; a missing one fails, but migrations, which need CONFIG_SCHED_DEBUG. */
    private static long[] counts(SchedulerCounts.Reading reading) {
        long[] counts = new long[SchedulerCounts.values().length];
        for (SchedulerCounts count : SchedulerCounts.values()) {
            OptionalLong value = reading.count(count);
            assertTrue(value.isPresent() || count == SchedulerCounts.CPU_MIGRATIONS, count.name());
            counts[count.ordinal()] = value.orElse(0);
        }
        return counts;
    }
}
