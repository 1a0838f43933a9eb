package io.perfpin.cli;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.cpu.CpuSet;
import io.perfpin.event.EventList;
import io.perfpin.jvm.JavaThreadInfo;
import io.perfpin.jvm.LastCpu;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.report.Hint;
import io.perfpin.report.Hints;
import io.perfpin.report.PinSource;
import io.perfpin.report.Preemptions;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A thread of the JVM that {@code perfpin stat} counts, from when it began counting it: its counters, its
 * counts so far and at the last sample (an interval's counts are the difference), and what its report needs
 * besides: its CPUs, whether stat pinned it, how often it had been preempted before.
 */
final class CountedThread implements AutoCloseable {
    private final long pid;
    private final JavaThreadInfo thread;
    private final EventList events;
    private final ThreadCounters counters;
    private final String cpus;
    private final boolean pinned;
    /**
     * Its preemptions when its counting began, as the hints of a pinned thread need them ({@link Hints#pinned});
     * empty for any other, whose status file is not read.
     */
    private final OptionalLong preemptedBefore;
    /** Before its counters opened: its counts start after it. */
    private final long startNanos;

    private final CounterSnapshot total;
    private final CounterSnapshot atSample;
    private final CounterSnapshot interval;
    /** Just before and just after {@link #total} was last read: its counts were taken between the two. */
    private long readFromNanos;

    private long readToNanos;
    /** Just before the read that the last sample ended with: the next sample's window starts there. */
    private long sampleFromNanos;

    private boolean ended;
    private boolean sampledSinceEnd;

    private CountedThread(
            long pid,
            JavaThreadInfo thread,
            EventList events,
            ThreadCounters counters,
            CpuSet cpus,
            boolean pinned,
            long startNanos) {
        this.pid = pid;
        this.thread = thread;
        this.events = events;
        this.counters = counters;
        this.cpus = cpus.toString();
        this.pinned = pinned;
        this.preemptedBefore =
                Hints.pinned(cpus, pinned, pinSource()) ? Preemptions.of(pid, thread.tid()) : OptionalLong.empty();
        this.startNanos = startNanos;
        this.readFromNanos = startNanos;
        this.readToNanos = startNanos;
        this.sampleFromNanos = startNanos;
        this.total = counters.newSnapshot();
        this.atSample = counters.newSnapshot();
        this.interval = counters.newSnapshot();
    }

    /**
     * Counts {@code thread} from now on, out of {@code budget}; {@code cpus} are those it may run on (none when it
     * ended before they were read).
     */
    static CountedThread open(
            Syscalls syscalls,
            long pid,
            JavaThreadInfo thread,
            EventList events,
            RefusedEvents refused,
            DescriptorBudget budget,
            CpuSet cpus,
            boolean pinned) {
        long start = System.nanoTime();
        ThreadCounters counters = ThreadCounters.open(syscalls, pid, thread.tid(), events.events(), refused, budget);
        return new CountedThread(pid, thread, events, counters, cpus, pinned, start);
    }

    int tid() {
        return thread.tid();
    }

    /** Why it holds no counter (out of descriptors); null when it counts. */
    String notCounted() {
        return counters.notCounted();
    }

    /** Takes its counts as they are now. */
    void read() {
        if (!ended) {
            readTotal();
        }
    }

    private void readTotal() {
        readFromNanos = System.nanoTime();
        counters.read(total);
        readToNanos = System.nanoTime();
    }

    /**
     * It ended: its counts are final (the kernel keeps an ended thread's counts readable), and its descriptors
     * closed. Its /proc counts stay as last read, since its files went with it.
     */
    void end() {
        if (!ended) {
            readTotal();
            counters.close();
            ended = true;
        }
    }

    /** Whether it has counts not yet sampled: it runs, or it ended after its last sample. */
    boolean sampleDue() {
        return !ended || !sampledSinceEnd;
    }

    /**
     * Its counts since the last sample, or since it began at the first, over the time from just before the earlier
     * read to just after the later one: all the time the counts can have taken.
     */
    ThreadReport sample() {
        CounterSnapshot.delta(total, atSample, interval);
        ThreadReport report = report(interval, readToNanos - sampleFromNanos);
        atSample.copyFrom(total);
        sampleFromNanos = readFromNanos;
        sampledSinceEnd = ended;
        return report;
    }

    /** Its counts since stat began counting it, until it ended or its last read. */
    private ThreadReport total() {
        return report(total, readToNanos - startNanos);
    }

    /** Its totals as a record made at {@code epochMillis}, their hints added to {@code hints}. */
    ThreadRecord totals(long epochMillis, List<Hint> hints) {
        ThreadReport report = total();
        hints.addAll(hints(report));
        return new ThreadRecord(ThreadRecords.THREAD, epochMillis, report);
    }

    /**
     * What the report says, and, on a pinned thread still running, how often it was preempted meanwhile per /proc.
     */
    private List<Hint> hints(ThreadReport report) {
        // An ended thread's TID may be another thread's by now.
        OptionalLong after =
                !ended && preemptedBefore.isPresent() ? Preemptions.of(pid, thread.tid()) : OptionalLong.empty();
        OptionalLong preempted = preemptedBefore.isPresent() && after.isPresent()
                ? OptionalLong.of(after.getAsLong() - preemptedBefore.getAsLong())
                : OptionalLong.empty();
        return Hints.of(report, pinned, preempted);
    }

    private ThreadReport report(CounterSnapshot counts, long wallNanos) {
        OptionalInt lastCpu = !ended ? LastCpu.of(pid, thread.tid()) : OptionalInt.empty();
        return ThreadReport.of(
                        thread.name(),
                        thread.tid(),
                        thread.javaId(),
                        cpus,
                        events,
                        counts,
                        counters.unsupported(),
                        wallNanos)
                .withSources(counters.sources())
                .withPin(pinSource())
                .withLastCpu(lastCpu)
                .withState(ended ? ThreadState.ENDED : ThreadState.RUNNING)
                .withPmu(Backends.simulatedPmu());
    }

    private PinSource pinSource() {
        return pinned ? PinSource.PERFPIN : PinSource.NONE;
    }

    @Override
    public void close() {
        counters.close();
    }
}
