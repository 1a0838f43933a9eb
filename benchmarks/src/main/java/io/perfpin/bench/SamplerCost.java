package io.perfpin.bench;

import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.registry.RegistryConfig;
import io.perfpin.registry.ThreadRegistry;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Benchmark 5b, in this JVM: a {@link ThreadRegistry} as the agent configures it (events {@code ipc,sched},
 * a stats file) with idle enrolled threads. It measures the sampler thread's CPU time per tick with
 * {@value #THREADS} threads and with none, and from the difference the cost per thread per tick. Each enrolled
 * thread also times its own {@link ThreadRegistry#enrolCurrentThread} call (opening its counters), one thread
 * after another.
 */
final class SamplerCost {
    static final int THREADS = 200;
    /** The agent's default events. */
    private static final String EVENTS = "ipc,sched";
    /** Short, for many ticks in a second; a tick's work does not depend on the interval. */
    private static final long INTERVAL_NANOS = 10_000_000L;
    private static final long SETTLE_MILLIS = 200;
    private static final long MEASURE_MILLIS = 1000;
    private static final double DEFAULT_INTERVAL_MICROS = 500_000;

    private SamplerCost() {
    }

    /** What one registry measured. */
    private record Phase(double cpuNanosPerTick, List<Double> enrolMicros) {
    }

    /** The figures of {@link #run}, for the churn benchmark to explain itself with. */
    record Result(Section section, Summary enrolMicros) {
    }

    static Result run(Workspace workspace) throws IOException, InterruptedException {
        Set<String> warnings = ConcurrentHashMap.newKeySet();
        List<Double> idleTick = new ArrayList<>();
        List<Double> perThreadTick = new ArrayList<>();
        List<Double> enrolMicros = new ArrayList<>();
        for (int i = 1; i <= workspace.runs(); i++) {
            Phase idle = measure(workspace, 0, warnings);
            Phase busy = measure(workspace, THREADS, warnings);
            idleTick.add(idle.cpuNanosPerTick() / 1e3);
            perThreadTick.add((busy.cpuNanosPerTick() - idle.cpuNanosPerTick()) / THREADS / 1e3);
            enrolMicros.addAll(busy.enrolMicros());
        }
        Summary idle = Summary.of(idleTick);
        Summary perThread = Summary.of(perThreadTick);
        Summary enrol = Summary.of(enrolMicros);
        double shareOfCpu = THREADS * perThread.median() / DEFAULT_INTERVAL_MICROS;
        MarkdownTable table = new MarkdownTable("", "µs: median (min–max)")
                .row("sampler CPU per tick, no thread enrolled", idle.format(2))
                .row("sampler CPU per enrolled thread per tick", perThread.format(2))
                .row("`enrolCurrentThread` (opens the thread's counters), per thread", enrol.format(1));
        Headline headline = new Headline("sampler CPU per enrolled thread per tick", perThread.format(2) + " µs", "",
                "", "", Verdict.noTarget());
        List<String> notes = new ArrayList<>();
        notes.add(workspace.runs() + " repetitions of: a registry with no thread, then one with " + THREADS
                + " parked threads enrolled, the sampler ticking every " + INTERVAL_NANOS / 1_000_000
                + " ms; its CPU time (ThreadMXBean) over "
                + MEASURE_MILLIS + " ms after " + SETTLE_MILLIS + " ms to settle, over the ticks counted by a tick"
                + " listener. The enrolment times are all " + workspace.runs() * THREADS + " calls.");
        notes.add(String.format(Locale.ROOT, "At the agent's default interval (500 ms), %d enrolled threads cost the"
                + " sampler %.3f%% of one CPU.", THREADS, 100 * shareOfCpu));
        warnings.forEach(w -> notes.add("The registry said: " + w));
        return new Result(new Section("5b. Sampling and enrolment, in process", List.of(headline), List.of(table),
                notes), enrol);
    }

    private static Phase measure(Workspace workspace, int threads, Set<String> warnings)
            throws IOException, InterruptedException {
        RegistryConfig config = RegistryConfig.of(EventList.parse(EVENTS, new EventParser()))
                .withInterval(INTERVAL_NANOS).withStatsFile(workspace.scratch("sampler.stats"));
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Double> enrolMicros = new ArrayList<>();
        try (ThreadRegistry registry = ThreadRegistry.start(Backends.syscalls(), config, notice -> warnings.add(notice.text()))) {
            AtomicLong ticks = new AtomicLong();
            registry.onTick((now, finalPass, record) -> ticks.incrementAndGet());
            CountDownLatch release = new CountDownLatch(1);
            List<Thread> idle = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                // One at a time, so that each enrolment is timed alone rather than queued behind 200 others.
                CountDownLatch enrolled = new CountDownLatch(1);
                long[] nanos = new long[1];
                Thread thread = new Thread(() -> {
                    long start = System.nanoTime();
                    registry.enrolCurrentThread(null, null);
                    nanos[0] = System.nanoTime() - start;
                    enrolled.countDown();
                    awaitQuietly(release);
                }, "idle-" + t);
                thread.start();
                idle.add(thread);
                enrolled.await();
                enrolMicros.add(nanos[0] / 1e3);
            }
            Thread.sleep(SETTLE_MILLIS);
            long sampler = samplerThreadId();
            long cpuBefore = mx.getThreadCpuTime(sampler);
            long ticksBefore = ticks.get();
            Thread.sleep(MEASURE_MILLIS);
            long cpu = mx.getThreadCpuTime(sampler) - cpuBefore;
            long ticked = ticks.get() - ticksBefore;
            release.countDown();
            for (Thread thread : idle) {
                thread.join();
            }
            return new Phase((double) cpu / ticked, enrolMicros);
        }
    }

    /** The running registry's sampler: the previous one's has ended, since its registry was closed. */
    private static long samplerThreadId() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("perfpin-sampler") && t.isAlive()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no perfpin-sampler thread")).getId();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
