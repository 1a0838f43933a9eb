package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.testkit.PerfEventDescriptors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A registry closed with nowhere to send its last tick (no stats file, no recording, no listener that wants it), as a
 * short main's JVM with the agent's defaults: the last tick is skipped, and every thread is let go of all the same,
 * its perf_event descriptors closed and its pin undone, as the kernel tells.
 */
class LastTickTest {
    private static final long DEADLINE_SECONDS = 20;
    /** Long enough that no tick comes before close: the registry never ticks in these tests. */
    private static final long AN_HOUR = TimeUnit.HOURS.toNanos(1);

    private final ThreadAffinity affinity = ThreadAffinity.system();
    private final List<Boolean> passes = new CopyOnWriteArrayList<>();

    @Test
    void withNothingToReceiveItTheLastTickIsSkippedAndTheThreadIsLetGo() throws Exception {
        assertLastTick(false);
    }

    @Test
    void aListenerThatWantsTheLastTickGetsIt() throws Exception {
        assertLastTick(true);
    }

    private void assertLastTick(boolean wanted) throws Exception {
        assumeTrue(affinity.get(0).contains(1), "needs CPU 1");
        String before = affinity.get(0).toString();
        long descriptorsBefore = PerfEventDescriptors.ofThisProcess();
        ThreadRegistry registry = ThreadRegistry.start(
                Backends.syscalls(),
                RegistryConfig.of(EventList.parse("task-clock,page-faults", new EventParser()))
                        .withInterval(AN_HOUR),
                notice -> {});
        registry.onTick(listener(wanted));
        CountDownLatch enrolled = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        int[] tid = new int[1];
        Thread worker = new Thread(
                () -> {
                    registry.enrolCurrentThread(null, Placement.parse("1"));
                    tid[0] = affinity.currentTid();
                    enrolled.countDown();
                    try {
                        end.await(DEADLINE_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "still-running-at-close");
        worker.start();
        try {
            assertTrue(enrolled.await(DEADLINE_SECONDS, TimeUnit.SECONDS));
            assertEquals("1", cpusAllowed(tid[0]));
            assertTrue(PerfEventDescriptors.ofThisProcess() > descriptorsBefore, "the worker is counted");
            registry.close();

            assertEquals(wanted ? List.of(true) : List.of(), passes, "last passes the listener got");
            assertEquals(descriptorsBefore, PerfEventDescriptors.ofThisProcess(), "every perf_event descriptor closed");
            assertEquals(before, cpusAllowed(tid[0]), "the pin undone");
        } finally {
            end.countDown();
            worker.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            registry.close();
        }
        assertFalse(worker.isAlive());
    }

    private ThreadRegistry.TickListener listener(boolean wanted) {
        return new ThreadRegistry.TickListener() {
            @Override
            public void afterTick(long epochMillis, boolean finalPass, Consumer<String> record) {
                passes.add(finalPass);
            }

            @Override
            public boolean wantsLastTick() {
                return wanted;
            }
        };
    }

    private static String cpusAllowed(int tid) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).trim();
            }
        }
        throw new AssertionError("no Cpus_allowed_list for thread " + tid);
    }
}
