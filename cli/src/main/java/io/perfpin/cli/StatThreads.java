package io.perfpin.cli;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.jvm.JavaThreadInfo;
import io.perfpin.jvm.ProcessChangedException;
import io.perfpin.jvm.ProcessIdentity;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.PinRule;
import io.perfpin.report.Hint;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadRecords;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The threads {@code perfpin stat} counts, in the order it began counting them: those chosen at the start, and
 * those that started later, each pinned first where a {@code --pin} rule matches it. Their counters take their
 * descriptors out of one budget: a thread beyond it is kept, not counted, with the reason.
 */
final class StatThreads implements AutoCloseable {
    /** How long counting may wait for pinned threads to move: a thread asleep longer moves later. */
    private static final Duration MOVE_PATIENCE = Duration.ofMillis(100);

    private final Syscalls syscalls;
    private final ProcessIdentity process;
    private final long pid;
    private final EventList events;
    private final PinOptions pins;
    private final ThreadPins pinned;
    private final DescriptorBudget budget;
    private final ThreadAffinity affinity;
    /** What the kernel refuses every thread, so that a thread counted later tries it no more. */
    private final RefusedEvents refused = new RefusedEvents();

    private final List<CountedThread> all = new ArrayList<>();
    private final Map<Integer, CountedThread> running = new HashMap<>();

    StatThreads(
            Syscalls syscalls,
            ProcessIdentity process,
            EventList events,
            PinOptions pins,
            ThreadPins pinned,
            DescriptorBudget budget) {
        this.syscalls = syscalls;
        this.process = process;
        this.pid = process.pid();
        this.events = events;
        this.pins = pins;
        this.pinned = pinned;
        this.budget = budget;
        this.affinity = new ThreadAffinity(syscalls);
    }

    /**
     * Pins each of {@code threads} that a rule matches, waits for those to be on their CPUs, then counts them all.
     *
     * @param atStart whether these are the threads chosen at the start, where a rule that cannot be had ends the
     *                command (its message and exit code); a thread that starts later is counted where it runs,
     *                and that is said in one line
     * @throws ProcessChangedException when the pid no longer names the process checked, which is then neither
     *                                 pinned nor counted any further (threads counted already are not read again
     *                                 by a caller that heeds it)
     */
    void count(List<JavaThreadInfo> threads, boolean atStart) throws IOException {
        // The threads were named by a thread dump that the process answered itself, whenever it chose to.
        process.check();
        List<Integer> moved = new ArrayList<>();
        for (JavaThreadInfo t : threads) {
            PinRule rule = pins.ruleFor(t.name()).orElse(null);
            if (rule == null) {
                continue;
            }
            try {
                CpuSet to = pinned.pin(t.tid(), t.name(), rule.placement()).placed();
                moved.add(t.tid());
                System.err.println(TerminalText.escape("perfpin stat: pinned '" + t.name() + "' (tid " + t.tid()
                        + ") to " + to.inWords() + " by --pin '" + rule + "' while counting"));
            } catch (IOException | RuntimeException e) {
                if (atStart || e instanceof ProcessChangedException) {
                    throw e;
                }
                System.err.println(TerminalText.escape("perfpin stat: cannot pin '" + t.name() + "' (tid " + t.tid()
                        + ") by --pin '" + rule + "', which started while counting: " + e.getMessage()
                        + "; it is counted where it runs"));
            }
        }
        // On their new CPUs before their counters open, so that the move is not counted as a migration.
        pinned.awaitOnTheirCpus(moved, MOVE_PATIENCE);
        process.check();
        for (JavaThreadInfo t : threads) {
            CountedThread counted = CountedThread.open(
                    syscalls, pid, t, events, refused, budget, cpusOf(t.tid()), pinned.isPinned(t.tid()));
            all.add(counted);
            running.put(t.tid(), counted);
        }
        // An exec between the check and the counters' opening: they would count another program.
        process.check();
    }

    /** Finalises the threads among {@code tids} that it counts: they ended. */
    void ended(Set<Integer> tids) {
        for (int tid : tids) {
            CountedThread t = running.remove(tid);
            if (t != null) {
                t.end();
            }
        }
    }

    /** Takes the counts of every running thread as they are now. */
    void read() {
        running.values().forEach(CountedThread::read);
    }

    /**
     * Each counted thread's counts since the last sample, those that ended since included; a thread not counted
     * has none to show until its totals.
     */
    List<ThreadRecord> samples() {
        long now = System.currentTimeMillis();
        List<ThreadRecord> records = new ArrayList<>();
        for (CountedThread t : all) {
            if (t.notCounted() == null && t.sampleDue()) {
                records.add(new ThreadRecord(ThreadRecords.SAMPLE, now, t.sample()));
            }
        }
        return records;
    }

    /** Every thread's totals since stat began counting it, with the hints of each. */
    List<ThreadRecord> totals(List<Hint> hints) {
        long now = System.currentTimeMillis();
        List<ThreadRecord> records = new ArrayList<>();
        for (CountedThread t : all) {
            records.add(t.totals(now, hints));
        }
        return records;
    }

    /** How many threads it holds without a counter, and why (the same reason for all); null when none. */
    String notCounted() {
        int threads = 0;
        String why = null;
        for (CountedThread t : all) {
            if (t.notCounted() != null) {
                threads++;
                why = why != null ? why : t.notCounted();
            }
        }
        return threads == 0 ? null : threads + " of " + all.size() + " threads not counted: " + why;
    }

    /** As the kernel has them: a pin within a cgroup's cpuset keeps only the CPUs the cpuset allows. */
    private CpuSet cpusOf(int tid) {
        try {
            return affinity.get(tid);
        } catch (RuntimeException e) {
            return CpuSet.EMPTY; // the thread ended since the dump
        }
    }

    @Override
    public void close() {
        all.forEach(CountedThread::close);
    }
}
