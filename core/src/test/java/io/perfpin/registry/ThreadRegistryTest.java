package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.apps.PageToucher;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.ThreadLifecycleEvents;
import io.perfpin.report.Recording;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.StatsSnapshot;
import io.perfpin.stats.ThreadSample;
import io.perfpin.testkit.PerfEventDescriptors;
import io.perfpin.testkit.SystemProperty;
import io.perfpin.testkit.Threads;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThreadRegistryTest {
    @TempDir
    Path dir;

    private final ThreadAffinity affinity = ThreadAffinity.system();
    private final List<String> warnings = new CopyOnWriteArrayList<>();

    private ThreadRegistry start(RegistryConfig config) throws IOException {
        return ThreadRegistry.start(Backends.syscalls(), config, notice -> warnings.add(notice.text()));
    }

    private static EventList events(String list) {
        return EventList.parse(list, new EventParser());
    }

    /**
     * A viewer writes its CSV header from its first frame, which may come before any thread is enrolled: the file
     * names every selected event from its start, in --events order, not in the order threads first used them.
     */
    @Test
    void theStatsFileNamesEverySelectedEventInOrderBeforeAnyThreadIsEnrolled() throws Exception {
        Path statsFile = dir.resolve("stats/1.stats");
        EventList selected = events("page-faults,task-clock,sched");
        ThreadRegistry registry = start(RegistryConfig.of(selected).withStatsFile(statsFile));
        try (StatsFileReader reader = StatsFileReader.open(statsFile)) {
            List<String> names = new ArrayList<>();
            selected.events().forEach(event -> names.add(event.name()));
            assertEquals(
                    List.of(
                            "page-faults",
                            "task-clock",
                            "context-switches",
                            "cpu-migrations",
                            "minor-faults",
                            "major-faults"),
                    names);
            assertEquals(names, reader.snapshot().eventNames());
            assertTrue(
                    reader.snapshot().threads().stream().noneMatch(t -> t.state() == StatsLayout.STATE_RUNNING),
                    "no thread enrolled");
        } finally {
            registry.close();
        }
    }

    @Test
    void aThreadPinnedAndCountedFromItsStartIsPublishedLiveAndRecordedAtItsEnd() throws Exception {
        assumeTrue(affinity.get(0).contains(1), "needs CPU 1");
        Path statsFile = dir.resolve("stats/1.stats");
        Path recording = dir.resolve("run.jsonl");
        ThreadRegistry registry = start(RegistryConfig.of(events("sched"))
                .withInterval(20_000_000L)
                .withStatsFile(statsFile)
                .withJsonLines(recording));
        CountDownLatch pinned = new CountDownLatch(1);
        CountDownLatch touch = new CountDownLatch(1);
        int[] tid = new int[1];
        Thread worker = new Thread(
                () -> {
                    registry.enrolCurrentThread(null, Placement.parse("1"));
                    tid[0] = affinity.currentTid();
                    pinned.countDown();
                    try {
                        touch.await();
                        PageToucher.touch(16 << 20);
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    } finally {
                        registry.threadEnded(Thread.currentThread());
                    }
                },
                "order-matcher");
        worker.start();
        try {
            Threads.await(pinned);

            // Visible from outside the thread: the kernel's view and the stats file agree with the pin.
            assertEquals("1", statusField(tid[0], "Cpus_allowed_list"));
            try (StatsFileReader reader = StatsFileReader.open(statsFile)) {
                ThreadSample sample = awaitSlot(reader, tid[0], StatsLayout.STATE_RUNNING);
                assertEquals("order-matcher", sample.name());
                assertEquals("1", sample.cpus());
                assertEquals(worker.getId(), sample.javaId());

                touch.countDown();
                Threads.join(worker);
                ThreadSample done = awaitSlot(reader, tid[0], StatsLayout.STATE_FINISHED);
                int faults = reader.snapshot().eventNames().indexOf("page-faults");
                assertWithin(4096, done.raw(faults), 0.03, "page faults in the stats file");
                registry.close();

                assertTrue(reader.isClosed());
            }
        } finally {
            touch.countDown(); // a failed assertion must not leave the worker parked, pinned, and the sampler on
            Threads.join(worker);
            registry.close();
        }
        List<ThreadRecord> records = threadRecords(recording);
        ThreadReport last = records.stream()
                .filter(ThreadRecord::isFinal)
                .findFirst()
                .orElseThrow()
                .report();
        assertEquals("order-matcher", last.name());
        assertEquals("1", last.cpus());
        assertWithin(4096, last.counters().get("page-faults"), 0.03, "page faults in the recording");
        assertTrue(records.stream().anyMatch(r -> !r.isFinal()), "live samples were recorded");
        assertEquals(
                "rw-------",
                java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(recording)));
    }

    /**
     * The file is truncated (a write would fault) or replaced (a viewer reads another file) while a thread is
     * counted: the registry says so once, and the thread's counts from before and after reach its final record.
     */
    @Test
    void aStatsFileTruncatedOrReplacedUnderTheRegistryIsLeftAndCountingGoesOn() throws Exception {
        for (String damage : List.of("truncated", "replaced")) {
            warnings.clear();
            Path statsFile = dir.resolve(damage + ".stats");
            Path recording = dir.resolve(damage + ".jsonl");
            ThreadRegistry registry = start(RegistryConfig.of(events("sched"))
                    .withInterval(10_000_000L)
                    .withStatsFile(statsFile)
                    .withJsonLines(recording));
            CountDownLatch damaged = new CountDownLatch(1);
            int[] tid = new int[1];
            Thread worker = new Thread(
                    () -> {
                        tid[0] = affinity.currentTid();
                        registry.enrolCurrentThread(null, null);
                        try {
                            PageToucher.touch(4 << 20);
                            damaged.await();
                            PageToucher.touch(4 << 20);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            registry.threadEnded(Thread.currentThread());
                        }
                    },
                    "survivor");
            byte[] replacement = "not the registry's file".getBytes(StandardCharsets.UTF_8);
            try {
                worker.start();
                try (StatsFileReader reader = StatsFileReader.open(statsFile)) {
                    awaitSlot(reader, awaitTid(tid), StatsLayout.STATE_RUNNING);
                }
                if (damage.equals("truncated")) {
                    try (FileChannel channel = FileChannel.open(statsFile, StandardOpenOption.WRITE)) {
                        channel.truncate(0);
                    }
                } else {
                    Path other = dir.resolve("other");
                    Files.write(other, replacement);
                    Files.move(other, statsFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (warnings.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                damaged.countDown();
                worker.join(10_000);
            } finally {
                damaged.countDown();
                registry.close();
            }
            String expected = "stopped publishing to the stats file " + statsFile + ": "
                    + (damage.equals("truncated") ? "it was truncated to 0 bytes (" : "another file took its place;");
            assertEquals(1, warnings.size(), damage + ": " + warnings);
            assertTrue(
                    warnings.get(0).startsWith(expected) && warnings.get(0).endsWith("; counting and recording go on"),
                    warnings.get(0));
            ThreadReport last = threadRecords(recording).stream()
                    .filter(ThreadRecord::isFinal)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(damage + ": no final record"))
                    .report();
            assertWithin(
                    2048,
                    last.counters().get("page-faults"),
                    0.03,
                    damage + ": page faults before and after, in the final record");
            if (damage.equals("truncated")) {
                assertEquals(0, Files.size(statsFile), "never written again, not even marked closed");
            } else {
                assertEquals(
                        new String(replacement, StandardCharsets.UTF_8),
                        Files.readString(statsFile),
                        "the file that took its place is left alone");
            }
        }
    }

    private static int awaitTid(int[] tid) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (tid[0] == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        return tid[0];
    }

    @Test
    void threadChurnKeepsEveryTotalAndGivesBackEveryDescriptor() throws Exception {
        long descriptorsBefore = PerfEventDescriptors.ofThisProcess();
        Path statsFile = dir.resolve("churn.stats");
        ThreadRegistry registry = start(RegistryConfig.of(events("page-faults,task-clock"))
                .withInterval(10_000_000L)
                .withStatsFile(statsFile)
                .withSlots(16, 8));
        int threads = 400;
        long bytes = 1 << 20;
        try {
            for (int batch = 0; batch < threads; batch += 8) {
                List<Thread> running = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    Thread t = new Thread(
                            () -> {
                                registry.enrolCurrentThread(null, null);
                                try {
                                    PageToucher.touch(bytes);
                                } finally {
                                    registry.threadEnded(Thread.currentThread());
                                }
                            },
                            "churn-" + (batch + i));
                    t.start();
                    running.add(t);
                }
                for (Thread t : running) {
                    Threads.join(t);
                }
            }
        } finally {
            registry.close();
        }
        StatsSnapshot snapshot;
        try (StatsFileReader reader = StatsFileReader.open(statsFile)) {
            snapshot = reader.snapshot();
        }

        int faults = snapshot.eventNames().indexOf("page-faults");
        long total = 0;
        int counted = 0;
        for (ThreadSample sample : snapshot.threads()) {
            if (sample.state() == StatsLayout.STATE_FINISHED || sample.state() == StatsLayout.STATE_AGGREGATE) {
                total += sample.raw(faults);
                counted += sample.threads();
            }
        }
        assertEquals(threads, counted, "every finished thread is in the ring or the aggregate");
        assertWithin(threads * (bytes / PageToucher.PAGE_SIZE), total, 0.03, "page faults of all finished threads");
        assertEquals(
                descriptorsBefore, PerfEventDescriptors.ofThisProcess(), "perf_event descriptors back to the baseline");
        assertEquals(List.of(), warnings);
    }

    /**
     * Where no rule pins by name, the CPU topology (hundreds of sysfs files on a large machine) is read only once pins
     * may come: not with the deferred work, which ticks after it show done, but when the registry is told of pins
     * ahead, before the sampler's next tick; and as the sampler starts in a registry started to pin (the agent's,
     * where a rule pins by name).
     */
    @Test
    void theTopologyIsReadOnlyWherePinsMayCome() throws Exception {
        RegistryConfig counting = RegistryConfig.of(events("task-clock"))
                .withInterval(TimeUnit.MILLISECONDS.toNanos(5))
                .withDeferredDelay(TimeUnit.MILLISECONDS.toNanos(1));
        ThreadRegistry registry = start(counting.withTopologyWhenAsked());
        try {
            Threads.await(ticks(registry, 3));
            assertFalse(registry.topologyRead(), "read where nothing pins");
            registry.pinsAhead();
            // a tick under way as it was told, then the sampler's next wait reads it, then a tick
            Threads.await(ticks(registry, 2));
            assertTrue(registry.topologyRead(), "read once told of pins ahead");
        } finally {
            registry.close();
        }
        ThreadRegistry pinning = start(counting);
        try {
            Threads.await(ticks(pinning, 1));
            assertTrue(pinning.topologyRead(), "read as the sampler starts, in a registry started to pin");
        } finally {
            pinning.close();
        }
        assertEquals(List.of(), warnings);
    }

    /** Counted down by the registry's next {@code count} ticks. */
    private static CountDownLatch ticks(ThreadRegistry registry, int count) {
        CountDownLatch ticked = new CountDownLatch(count);
        registry.onTick((epochMillis, finalPass, record) -> ticked.countDown());
        return ticked;
    }

    @Test
    void closingGivesAPinnedThreadBackTheAffinityItHadBefore() throws Exception {
        assumeTrue(affinity.get(0).contains(0) && affinity.get(0).contains(1), "needs CPUs 0 and 1");
        ThreadRegistry registry = start(RegistryConfig.of(events("task-clock")));
        CountDownLatch pinned = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        int[] tid = new int[1];
        CpuSet[] before = new CpuSet[1];
        Thread worker = new Thread(
                () -> {
                    tid[0] = affinity.currentTid();
                    before[0] = affinity.get(tid[0]);
                    registry.enrolCurrentThread(null, Placement.parse("0"));
                    pinned.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "detached");
        worker.start();
        try {
            Threads.await(pinned);
            assertEquals(CpuSet.of(0), affinity.get(tid[0]));
            registry.close();
            assertEquals(before[0], affinity.get(tid[0]), "the pin is undone");
            assertTrue(worker.isAlive(), "the thread itself carries on");
        } finally {
            release.countDown();
            Threads.join(worker);
            registry.close();
        }
    }

    /**
     * A task cancelled with Future.cancel(true) leaves its thread interrupted as its annotated task returns: the
     * thread still gives back its reservation's CPU (its lock file's channel would close itself on the interrupt) and
     * its counters, its pin is undone, it keeps its interrupt, and nothing is said.
     */
    @Test
    void aThreadThatLeavesItsTaskInterruptedGivesBackItsCoreAndKeepsItsInterrupt() throws Exception {
        assumeTrue(
                CpuTopology.live().cores().stream().anyMatch(CpuTopology.live().allowed()::containsAll),
                "needs a whole core");
        // Reservations of its own: no other test's pins take the cores.
        Path perfpinDir = dir.resolve("perfpin-interrupted");
        long descriptorsBefore = PerfEventDescriptors.ofThisProcess();
        try (SystemProperty own = SystemProperty.set(PerfpinDirectory.PROPERTY, perfpinDir.toString());
                ThreadRegistry registry = start(RegistryConfig.of(events("task-clock")))) {
            CpuSet[] around = new CpuSet[3];
            boolean[] stillInterrupted = new boolean[1];
            Thread worker = new Thread(
                    () -> {
                        int tid = affinity.currentTid();
                        around[0] = affinity.get(tid);
                        registry.enrolCurrentThread(null, Placement.CORE);
                        around[1] = affinity.get(tid);
                        Thread.currentThread().interrupt(); // as cancel(true) leaves it
                        registry.leave(Thread.currentThread());
                        stillInterrupted[0] = Thread.interrupted();
                        around[2] = affinity.get(tid);
                    },
                    "cancelled-1");
            worker.start();
            Threads.join(worker);
            assertTrue(stillInterrupted[0], "the thread keeps the interrupt the application gave it");
            assertEquals(around[0], around[2], "its pin undone: " + around[1] + " before");
            assertEquals(
                    List.of(), CpuReservations.open(perfpinDir.resolve("cpus")).list(), "its core given back");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // the sampler finishes it on its next tick: the one kept switched on is left
            while (PerfEventDescriptors.ofThisProcess() > descriptorsBefore + 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(
                    List.of("pin=core placed cancelled-1 on " + (around[1].size() == 1 ? "CPU " : "CPUs ") + around[1]),
                    warnings,
                    "nothing said but the placement");
        }
        assertEquals(descriptorsBefore, PerfEventDescriptors.ofThisProcess(), "every perf_event descriptor closed");
    }

    /** A placement that chooses the CPUs says which it chose for the thread, once, as a notice. */
    @Test
    void theCoreAPlacementChoseIsSaid() throws Exception {
        assumeTrue(
                CpuTopology.live().cores().stream().anyMatch(CpuTopology.live().allowed()::containsAll),
                "needs a whole core");
        // Reservations of its own: no other test's pins take the cores.
        try (SystemProperty own = SystemProperty.set(
                        PerfpinDirectory.PROPERTY, dir.resolve("perfpin").toString());
                ThreadRegistry registry = start(RegistryConfig.of(events("task-clock")))) {
            CpuSet[] pinned = new CpuSet[1];
            Thread worker = new Thread(
                    () -> {
                        try {
                            registry.enrolCurrentThread(null, Placement.CORE);
                            pinned[0] = affinity.get(affinity.currentTid());
                        } finally {
                            registry.threadEnded(Thread.currentThread());
                        }
                    },
                    "worker-1");
            worker.start();
            Threads.join(worker);
            String cpus = (pinned[0].size() == 1 ? "CPU " : "CPUs ") + pinned[0];
            assertEquals(List.of("pin=core placed worker-1 on " + cpus), warnings);
        }
    }

    @Test
    void aThreadStartedByAPinnedThreadDoesNotKeepThePinUnlessARuleSaysSo() throws Exception {
        assumeTrue(affinity.get(0).contains(0) && affinity.get(0).contains(1), "needs CPUs 0 and 1");
        CpuSet process = affinity.get(0);
        try (ThreadRegistry registry = start(RegistryConfig.of(events("task-clock")))) {
            CpuSet[] child = new CpuSet[2];
            boolean[] inherited = new boolean[2];
            Thread parent = new Thread(
                    () -> {
                        registry.enrolCurrentThread(null, Placement.parse("1"));
                        for (int i = 0; i < 2; i++) {
                            boolean inherit = i == 1;
                            int index = i;
                            Thread c = new Thread(() -> {
                                inherited[index] = registry.threadStarting(inherit);
                                child[index] = affinity.get(0);
                            });
                            c.start();
                            try {
                                Threads.join(c);
                            } catch (InterruptedException e) {
                                throw new AssertionError(e);
                            }
                        }
                        registry.threadEnded(Thread.currentThread());
                    },
                    "pinned-parent");
            parent.start();
            Threads.join(parent);
            assertEquals(process, child[0], "no rule: the child runs where the process runs");
            assertEquals(false, inherited[0]);
            assertEquals(CpuSet.of(1), child[1], "an inherit rule keeps the parent's pin");
            assertEquals(true, inherited[1]);
        }
    }

    /**
     * With the C library's enrolment, a thread starts with no Java on it: the rules are asked once per name without
     * its number, C opens the counters of those they select from the thread's first instruction, the sampler takes
     * each in, and each has its final record; those not selected have none, and every descriptor is given back.
     */
    @Test
    void threadsEnrolledInCAreAskedOncePerNameAndEachSelectedOneIsRecorded() throws Exception {
        Syscalls syscalls = Backends.syscalls();
        assumeTrue(syscalls.backend() == Backend.JNI, "the C library's enrolment needs the JNI backend");
        long descriptorsBefore = PerfEventDescriptors.ofThisProcess();
        RulesInC.ASKED.clear(); // of this test's threads alone, whichever test of C's enrolment ran before it
        RulesInC.STARTED.clear();
        Path recording = dir.resolve("in-c.jsonl");
        int threads = 200;
        int pages = 64;
        ThreadRegistry registry = start(RegistryConfig.of(events("page-faults,task-clock"))
                .withInterval(10_000_000L)
                .withJsonLines(recording));
        try {
            assertEquals(0, ThreadLifecycleEvents.enable(syscalls, RulesInC.class));
            assertTrue(registry.enrolInC(RulesInC.class), "the default events are one group: C enrols");
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(
                        () -> PageToucher.touch((long) pages * PageToucher.PAGE_SIZE),
                        (i % 2 == 0 ? "in-c-counted-" : "in-c-left-") + i);
                t.start();
                t.join(TimeUnit.SECONDS.toMillis(20));
                assertTrue(!t.isAlive(), "ended within the deadline");
            }
        } finally {
            ThreadLifecycleEvents.disable(syscalls);
            registry.close();
        }
        assertEquals(
                List.of("in-c-counted-0", "in-c-left-1"), RulesInC.ASKED, "asked once per name without its number");
        assertEquals(List.of(), RulesInC.STARTED, "no Java on the threads that C dealt with");
        List<ThreadReport> finals = threadRecords(recording).stream()
                .filter(ThreadRecord::isFinal)
                .map(ThreadRecord::report)
                .filter(r -> r.name().startsWith("in-c-"))
                .toList();
        assertEquals(threads / 2, finals.size(), "a final record for each selected thread: " + finals);
        for (ThreadReport record : finals) {
            assertTrue(record.name().startsWith("in-c-counted-"), record.name());
            assertTrue(
                    record.counters().get("page-faults") >= pages,
                    "counted from its start, to its end: " + record.counters());
        }
        assertEquals(
                descriptorsBefore, PerfEventDescriptors.ofThisProcess(), "perf_event descriptors back to the baseline");
        assertEquals(List.of(), warnings);
    }

    /**
     * A thread C enrolled that the sampler cannot take in (here an application's Thread whose getId fails the first
     * time the sampler asks, as its record is made) has its counters closed at once, while it runs on:
     * its slot is let go of, a pin its task set before is undone, the failure said once however many threads meet it,
     * and a thread beside them is counted to its end.
     */
    @Test
    void aThreadTheSamplerCannotTakeInHasItsCountersClosedAndTheOthersAreCounted() throws Exception {
        Syscalls syscalls = Backends.syscalls();
        assumeTrue(syscalls.backend() == Backend.JNI, "the C library's enrolment needs the JNI backend");
        assumeTrue(affinity.get(0).contains(0) && affinity.get(0).contains(1), "needs CPUs 0 and 1");
        long descriptorsBefore = PerfEventDescriptors.ofThisProcess();
        Path recording = dir.resolve("refused.jsonl");
        String failed = "taking in a thread counted from its start failed";
        ThreadRegistry registry = start(RegistryConfig.of(events("page-faults"))
                .withInterval(10_000_000L)
                .withJsonLines(recording));
        CountDownLatch end = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        try {
            assertEquals(0, ThreadLifecycleEvents.enable(syscalls, RulesInC.class));
            assertTrue(registry.enrolInC(RulesInC.class), "the default events are one group: C enrols");
            long registrysOwn = PerfEventDescriptors.ofThisProcess();
            for (int i = 0; i < 2; i++) {
                int[] tid = new int[1];
                CpuSet[] before = new CpuSet[1];
                Thread refused = new FailsOnceOnTheSampler(
                        () -> {
                            tid[0] = affinity.currentTid();
                            before[0] = affinity.get(tid[0]);
                            // as an @Pinned task does, most likely before the sampler's next tick takes it in
                            registry.pin(Thread.currentThread(), Placement.parse("0"));
                            awaitEnd(end);
                        },
                        "in-c-counted-refused-" + i);
                started.add(refused);
                refused.start();
                // The failure is said once: for the second thread, the notice is there before the sampler meets
                // it, so what is waited for is the outcome itself, which the sampler reaches within the deadline.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (refused.getState() != Thread.State.TIMED_WAITING
                        || !said(failed)
                        || PerfEventDescriptors.ofThisProcess() != registrysOwn
                        || !before[0].equals(affinity.get(tid[0]))) {
                    if (System.nanoTime() > deadline) {
                        break; // the assertions below say what was not reached
                    }
                    Thread.sleep(10);
                }
                assertTrue(said(failed), "the failure said");
                assertEquals(
                        registrysOwn,
                        PerfEventDescriptors.ofThisProcess(),
                        "the thread's counter closed as the sampler failed to take it in, while it runs on");
                assertEquals(before[0], affinity.get(tid[0]), "its CPUs as they were before its task's pin");
            }
            Thread counted = new Thread(() -> PageToucher.touch(64L * PageToucher.PAGE_SIZE), "in-c-counted-beside-0");
            started.add(counted);
            counted.start();
            counted.join(TimeUnit.SECONDS.toMillis(30));
        } finally {
            end.countDown();
            for (Thread t : started) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            ThreadLifecycleEvents.disable(syscalls);
            registry.close();
        }
        assertTrue(started.stream().noneMatch(Thread::isAlive), "ended within the deadline");
        assertEquals(1, warnings.stream().filter(w -> w.startsWith(failed)).count(), "said once: " + warnings);
        List<String> recorded = threadRecords(recording).stream()
                .filter(ThreadRecord::isFinal)
                .map(r -> r.report().name())
                .filter(name -> name.startsWith("in-c-"))
                .toList();
        assertEquals(List.of("in-c-counted-beside-0"), recorded, "the thread beside them counted to its end");
        assertEquals(
                descriptorsBefore, PerfEventDescriptors.ofThisProcess(), "perf_event descriptors back to the baseline");
    }

    /**
     * An OutOfMemoryError in a tick's work, where saying so runs out of memory too (for the work that failed, then
     * for the tick): the sampler ticks on, as a heap that ran short for a moment leaves it.
     */
    @Test
    void theSamplerTicksOnAfterAnOutOfMemoryErrorThatCannotBeSaid() throws Exception {
        AtomicInteger unsaid = new AtomicInteger(2);
        ThreadRegistry registry = ThreadRegistry.start(
                Backends.syscalls(), RegistryConfig.of(events("task-clock")).withInterval(10_000_000L), notice -> {
                    if (notice.cause() instanceof OutOfMemoryError && unsaid.getAndDecrement() > 0) {
                        throw new OutOfMemoryError("no heap to say " + notice.text());
                    }
                    warnings.add(notice.text());
                });
        AtomicInteger ticks = new AtomicInteger();
        try {
            registry.onTick((epochMillis, finalPass, record) -> {
                if (ticks.incrementAndGet() == 1) {
                    throw new OutOfMemoryError("Java heap space (thrown by the test)");
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ticks.get() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(ticks.get() >= 3, "ticks after the error: " + (ticks.get() - 1));
        } finally {
            registry.close();
        }
        assertTrue(unsaid.get() < 2, "saying the error ran out of memory, as the test made it: " + warnings);
    }

    /**
     * A thread whose start is still being enrolled in C when the registry closes, past the 10 s its stop waits: the
     * close says so once and returns, and the thread closes the counter it opens itself as its start goes on, after
     * the sampler took in its last threads, so that no perf descriptor is left while it runs. Until then a registry
     * started next (a second attach) enrols its threads in Java, saying so once, since that start reads what C's
     * enrolment would be given anew; once it is done, the next one enrols in C again.
     */
    @Test
    void aThreadStillStartingPastTheStopsDeadlineClosesItsOwnCounters() throws Exception {
        Syscalls syscalls = Backends.syscalls();
        assumeTrue(syscalls.backend() == Backend.JNI, "the C library's enrolment needs the JNI backend");
        long descriptorsBefore = PerfEventDescriptors.ofThisProcess();
        ThreadRegistry registry = start(RegistryConfig.of(events("page-faults")).withInterval(10_000_000L));
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread held = new Thread(
                () -> {
                    running.countDown();
                    awaitEnd(end);
                },
                "in-c-held-0");
        RulesInC.hold();
        try {
            assertEquals(0, ThreadLifecycleEvents.enable(syscalls, RulesInC.class));
            assertTrue(registry.enrolInC(RulesInC.class), "the default events are one group: C enrols");
            held.start();
            assertTrue(RulesInC.awaitHeld(), "its start asks the rules, in flight in C");
            ThreadLifecycleEvents.disable(syscalls); // as a detach does, before the registry closes
            registry.close();
            assertTrue(
                    said("closing: 1 thread starting still being enrolled after 10 s; each closes the counters it"
                            + " opens itself"),
                    "the close says what it left: " + warnings);
            ThreadRegistry next = start(RegistryConfig.of(events("page-faults")).withInterval(10_000_000L));
            try {
                assertFalse(next.enrolInC(RulesInC.class), "C's enrolment does not start again under the held start");
            } finally {
                next.close();
            }
            String busy = "starting threads are enrolled in Java, not in the C library: a thread that started before"
                    + " the last detach is still being enrolled there";
            assertEquals(1, warnings.stream().filter(busy::equals).count(), "said once: " + warnings);

            RulesInC.letGo();

            assertTrue(running.await(30, TimeUnit.SECONDS), "the thread runs, its start done");
            assertEquals(
                    descriptorsBefore,
                    PerfEventDescriptors.ofThisProcess(),
                    "its counter closed by itself: no perf_event descriptor left");
            ThreadRegistry after =
                    start(RegistryConfig.of(events("page-faults")).withInterval(10_000_000L));
            try {
                assertTrue(after.enrolInC(RulesInC.class), "C enrols again once the held start is done");
            } finally {
                after.close();
            }
        } finally {
            RulesInC.letGo();
            end.countDown();
            held.join(TimeUnit.SECONDS.toMillis(30));
            ThreadLifecycleEvents.disable(syscalls);
            registry.close();
        }
        assertTrue(!held.isAlive(), "ended within the deadline");
    }

    private boolean said(String prefix) {
        return warnings.stream().anyMatch(w -> w.startsWith(prefix));
    }

    private static void awaitEnd(CountDownLatch end) {
        try {
            end.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An application's thread whose hashCode fails the first time perfpin's sampler asks for it. */
    private static final class FailsOnceOnTheSampler extends Thread {
        private final AtomicBoolean failed = new AtomicBoolean();

        FailsOnceOnTheSampler(Runnable task, String name) {
            super(task, name);
        }

        @Override
        @SuppressWarnings("deprecation") // threadId(), final, is JDK 19's; getId() is what a JDK 17 class overrides
        public long getId() {
            if (Thread.currentThread().getName().equals("perfpin-sampler") && failed.compareAndSet(false, true)) {
                throw new IllegalStateException("no id for perfpin's sampler");
            }
            return super.getId();
        }
    }

    private static ThreadSample awaitSlot(StatsFileReader reader, int tid, int state)
            throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 10_000; attempt++) {
            for (ThreadSample sample : reader.snapshot().threads()) {
                if (sample.tid() == tid && sample.state() == state) {
                    return sample;
                }
            }
            Thread.sleep(1);
        }
        throw new AssertionError("thread " + tid + " never reached state " + state + " in the stats file");
    }

    private static String statusField(int tid, String field) throws IOException {
        return Files.readAllLines(Paths.get("/proc/self/task/" + tid + "/status")).stream()
                .filter(l -> l.startsWith(field + ":"))
                .map(l -> l.substring(field.length() + 1).trim())
                .findFirst()
                .orElseThrow();
    }

    /** Every thread record of a recording, samples included, in its order, as perfpin's report reads them. */
    private static List<ThreadRecord> threadRecords(Path recording) throws IOException {
        List<ThreadRecord> records = new ArrayList<>();
        Recording.read(recording, records::add);
        return records;
    }

    private static void assertWithin(double expected, double actual, double fraction, String what) {
        assertTrue(
                Math.abs(actual - expected) <= expected * fraction,
                what + ": " + actual + " is not within " + (fraction * 100) + "% of " + expected);
    }
}
