package io.perfpin.bench;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.options.DescriptorShare;
import io.perfpin.registry.RegistryConfig;
import io.perfpin.registry.ThreadRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Benchmark 6, in this JVM: a {@link ThreadRegistry} as the agent configures it (a stats file, its default live
 * slots) with 10, 1,000 and 10,000 idle enrolled threads. It measures the sampler thread's CPU time per tick with
 * each and with none, and from the difference the cost per thread per tick, which should stay flat as the threads
 * grow: a tick reads each thread's group once. Each enrolled thread also times its own
 * {@link ThreadRegistry#enrolCurrentThread} call (opening its counters), one thread after another.
 */
final class SamplerCost {
    static final List<Integer> SIZES = List.of(10, 1_000, 10_000);
    /**
     * One event a thread, so that 10,000 threads fit a common 20,000-descriptor limit; a tick reads a thread's group
     * in one read(2) whatever its events.
     */
    private static final String EVENTS = "task-clock";

    private static final int REPETITIONS = 3;
    /** Long enough for a tick over 10,000 threads to end before the next is due. */
    private static final long INTERVAL_NANOS = 50_000_000L;

    private static final long SETTLE_MILLIS = 300;
    private static final long MEASURE_MILLIS = 1500;
    private static final double DEFAULT_INTERVAL_MICROS = 500_000;
    /** The parked threads need next to no stack. */
    private static final long STACK_BYTES = 256 * 1024;

    private static final long DEADLINE_SECONDS = 120;

    private SamplerCost() {}

    /** What one registry measured. */
    private record Phase(double cpuNanosPerTick, List<Double> enrolMicros) {}

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        Set<String> warnings = ConcurrentHashMap.newKeySet();
        List<Double> idleTick = new ArrayList<>();
        Map<Integer, List<Double>> perThreadTick = new LinkedHashMap<>();
        List<Double> enrolMicros = new ArrayList<>();
        for (int i = 1; i <= REPETITIONS; i++) {
            Phase idle = measure(workspace, 0, warnings);
            idleTick.add(idle.cpuNanosPerTick() / 1e3);
            for (int threads : SIZES) {
                Phase busy = measure(workspace, threads, warnings);
                perThreadTick
                        .computeIfAbsent(threads, t -> new ArrayList<>())
                        .add((busy.cpuNanosPerTick() - idle.cpuNanosPerTick()) / threads / 1e3);
                if (threads == 1_000) {
                    enrolMicros.addAll(busy.enrolMicros());
                }
            }
        }
        Summary idle = Summary.of(idleTick);
        Summary enrol = Summary.of(enrolMicros);
        MarkdownTable table = new MarkdownTable("", "µs: median (min–max)")
                .row("sampler CPU per tick, no thread enrolled", idle.format(2));
        List<Headline> headlines = new ArrayList<>();
        for (Map.Entry<Integer, List<Double>> size : perThreadTick.entrySet()) {
            Summary perThread = Summary.of(size.getValue());
            String threads = Summary.number(size.getKey(), 0);
            table.row("sampler CPU per enrolled thread per tick, " + threads + " threads", perThread.format(2));
            // Already what a thread adds: the tick's CPU less the empty registry's, over the threads.
            headlines.add(Headline.alone(
                    "sampler CPU per enrolled thread per tick, " + threads + " threads",
                    idle.format(2) + " µs a tick (no thread)",
                    perThread.format(2) + " µs",
                    "",
                    "",
                    Verdict.noTarget()));
        }
        table.row("`enrolCurrentThread` (opens the thread's counters), per thread, 1,000 threads", enrol.format(1));
        Summary atThousand = Summary.of(perThreadTick.get(1_000));
        List<String> notes = new ArrayList<>();
        notes.add(REPETITIONS + " repetitions of: a registry with no thread, then one with each number of parked"
                + " threads enrolled (events=" + EVENTS
                + ", a stats file that grows its live slots as threads come), the"
                + " sampler ticking every " + INTERVAL_NANOS / 1_000_000 + " ms; its CPU time (ThreadMXBean) over "
                + MEASURE_MILLIS + " ms after " + SETTLE_MILLIS + " ms to settle, over the ticks counted by a tick"
                + " listener. Per thread per tick is the difference to the empty registry over the threads; the same"
                + " figure at each size is a cost growing linearly with the threads.");
        notes.add("One event a thread, so that 10,000 threads fit a 20,000-descriptor limit; a tick reads each thread's"
                + " group in one read(2) whatever its events; publishing every thread to the stats file is part of the"
                + " figure.");
        notes.add(String.format(
                Locale.ROOT,
                "At the agent's default interval (500 ms), 1,000 enrolled threads cost"
                        + " the sampler %.3f%% of one CPU.",
                100 * 1_000 * atThousand.median() / DEFAULT_INTERVAL_MICROS));
        warnings.forEach(w -> notes.add("The registry said: " + w));
        return new Section("6. Sampling and enrolment, in process", headlines, List.of(table), notes);
    }

    private static Phase measure(Workspace workspace, int threads, Set<String> warnings)
            throws IOException, InterruptedException {
        RegistryConfig config = RegistryConfig.of(EventList.parse(EVENTS, new EventParser()))
                .withInterval(INTERVAL_NANOS)
                .withStatsFile(workspace.scratch("sampler-" + threads + ".stats"))
                .withDescriptors(DescriptorShare.parse("100%"));
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Double> enrolMicros = new ArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> parked = new ArrayList<>();
        try (ThreadRegistry registry =
                ThreadRegistry.start(Backends.syscalls(), config, notice -> warnings.add(notice.text()))) {
            AtomicLong ticks = new AtomicLong();
            registry.onTick((now, finalPass, record) -> ticks.incrementAndGet());
            try {
                for (int t = 0; t < threads; t++) {
                    // One at a time, so that each enrolment is timed alone rather than queued behind others.
                    CountDownLatch enrolled = new CountDownLatch(1);
                    long[] nanos = new long[1];
                    Thread thread = new Thread(
                            null,
                            () -> {
                                long start = System.nanoTime();
                                registry.enrolCurrentThread(null, null);
                                nanos[0] = System.nanoTime() - start;
                                enrolled.countDown();
                                awaitQuietly(release);
                            },
                            "idle-" + t,
                            STACK_BYTES);
                    thread.start();
                    parked.add(thread);
                    if (!enrolled.await(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                        throw new IOException("thread " + t + " did not enrol within " + DEADLINE_SECONDS + " s");
                    }
                    enrolMicros.add(nanos[0] / 1e3);
                }
                Thread.sleep(SETTLE_MILLIS);
                long sampler = samplerThreadId();
                long cpuBefore = mx.getThreadCpuTime(sampler);
                long ticksBefore = ticks.get();
                Thread.sleep(MEASURE_MILLIS);
                long cpu = mx.getThreadCpuTime(sampler) - cpuBefore;
                long ticked = ticks.get() - ticksBefore;
                return new Phase((double) cpu / ticked, enrolMicros);
            } finally {
                release.countDown();
                for (Thread thread : parked) {
                    thread.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
                }
            }
        }
    }

    /** The running registry's sampler: the previous one's has ended, since its registry was closed. */
    private static long samplerThreadId() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("perfpin-sampler") && t.isAlive())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no perfpin-sampler thread"))
                .getId();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
