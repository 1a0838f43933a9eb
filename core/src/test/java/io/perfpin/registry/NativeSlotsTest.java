package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.PageToucher;
import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.NativeBuffer;
import io.perfpin.nativeio.NativeEnrolment;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.ThreadLifecycleEvents;
import io.perfpin.testkit.PerfEventDescriptors;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The C library's slots as the sampler holds them ({@link NativeEnrolment}), on the real kernel: threads started
 * here are enrolled by the JVM's thread events, adopted, read and let go of as the registry does.
 */
class NativeSlotsTest {
    /** As many slots as the registry asks for: only the first start of a JVM sets their number. */
    private static final int SLOTS = 4096;

    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int PAGES = 64;

    private final Syscalls syscalls = Backends.syscalls();

    /**
     * A slot let go of is taken by the next thread whose claim comes to it: a second release of the slot with the
     * generation the first thread was adopted with (a group closed twice) leaves the second thread's counters open,
     * and counting.
     */
    @Test
    void aReleaseWithAnOldGenerationLeavesTheSlotsNewThreadCounting() throws Exception {
        assumeTrue(syscalls.backend() == Backend.JNI, "the C library's enrolment needs the JNI backend");
        long descriptorsBefore = PerfEventDescriptors.ofThisProcess();
        long[] attrs = CounterGroup.slotAttrs(
                syscalls, EventList.parse("page-faults", new EventParser()).events());
        DescriptorBudget budget = DescriptorBudget.unbounded();
        NativeBuffer buffer = NativeBuffer.allocate(syscalls, 64);
        assertEquals(0, ThreadLifecycleEvents.enable(syscalls, RulesInC.class));
        try {
            assertEquals(
                    0,
                    NativeEnrolment.start(
                            syscalls, RulesInC.class, attrs, budget.sharedCount(), budget.budget(), SLOTS));
            Adopted first;
            try (Worker worker = new Worker("in-c-counted-slot-0")) {
                first = adoptOne();
                NativeEnrolment.release(first.slot, first.generation);
            }
            // Each claim starts one slot further: the slots' count of threads later, one comes back to the first's.
            Adopted again = null;
            Worker inSlot = null;
            for (int i = 1; again == null && i <= 2 * SLOTS; i++) {
                Worker worker = new Worker("in-c-counted-slot-" + i);
                Adopted adopted = adoptOne();
                if (adopted.slot == first.slot) {
                    again = adopted;
                    inSlot = worker;
                } else {
                    NativeEnrolment.release(adopted.slot, adopted.generation);
                    worker.close();
                }
            }
            assertNotNull(again, "a thread enrolled in slot " + first.slot + " again");
            try (Worker worker = inSlot) {
                assertNotEquals(first.generation, again.generation, "another generation in the slot");
                long open = PerfEventDescriptors.ofThisProcess();
                assertEquals(descriptorsBefore + 1, open, "the second thread's counter open");

                NativeEnrolment.release(first.slot, first.generation);

                assertEquals(open, PerfEventDescriptors.ofThisProcess(), "its counter still open");
                long faults = faults(again, buffer);
                worker.touch(PAGES);
                long counted = faults(again, buffer) - faults;
                assertTrue(counted >= PAGES, "and counting: " + counted + " faults for " + PAGES + " pages");
                NativeEnrolment.release(again.slot, again.generation);
            }
        } finally {
            NativeEnrolment.stop(syscalls);
            ThreadLifecycleEvents.disable(syscalls);
        }
        assertEquals(
                descriptorsBefore, PerfEventDescriptors.ofThisProcess(), "perf_event descriptors back to the baseline");
    }

    /** A slot the sampler took in: its index and generation. */
    private record Adopted(int slot, long generation) {}

    /** The one thread enrolled since the last adoption, once its start was dealt with. */
    private static Adopted adoptOne() throws InterruptedException {
        Thread[] threads = new Thread[1];
        int[] info = new int[NativeEnrolment.INFO];
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (NativeEnrolment.adopt(threads, info) == 0) {
            assertTrue(System.nanoTime() < deadline, "a thread enrolled within the deadline");
            Thread.sleep(1);
        }
        assertEquals(NativeEnrolment.LIVE, info[2], "counted");
        return new Adopted(info[0], (long) info[6] << 32 | (info[7] & 0xffffffffL));
    }

    /** The slot's page faults, read through C as the sampler reads them. */
    private static long faults(Adopted adopted, NativeBuffer buffer) {
        long read = NativeEnrolment.read(adopted.slot, adopted.generation, buffer.address(), buffer.size());
        assertTrue(read > 0, "read its group: " + read);
        return buffer.getLong(24); // after nr, time enabled and time running
    }

    /** A thread that touches pages when told, and ends when closed. */
    private static final class Worker implements AutoCloseable {
        private final BlockingQueue<Long> asked = new LinkedBlockingQueue<>();
        private final BlockingQueue<Long> done = new LinkedBlockingQueue<>();
        private final Thread thread;

        Worker(String name) {
            thread = new Thread(this::serve, name);
            thread.start();
        }

        private void serve() {
            try {
                for (Long bytes = asked.poll(60, TimeUnit.SECONDS);
                        bytes != null && bytes >= 0;
                        bytes = asked.poll(60, TimeUnit.SECONDS)) {
                    PageToucher.touch(bytes);
                    done.add(bytes);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void touch(int pages) throws InterruptedException {
            asked.add((long) pages * PageToucher.PAGE_SIZE);
            assertNotNull(done.poll(60, TimeUnit.SECONDS), "touched within the deadline");
        }

        @Override
        public void close() throws InterruptedException {
            asked.add(-1L);
            thread.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(thread.isAlive(), "ended within the deadline");
        }
    }
}
