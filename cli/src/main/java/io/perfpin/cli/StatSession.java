package io.perfpin.cli;

import io.perfpin.StopSignal;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.JavaThreadInfo;
import io.perfpin.jvm.ProcessChangedException;
import io.perfpin.jvm.ProcessIdentity;
import io.perfpin.jvm.ThreadDump;
import io.perfpin.jvm.ThreadWatch;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.report.Hint;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import java.io.IOException;
import java.time.Duration;
import java.time.LocalTime;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One count of {@code perfpin stat}, from the checks at its start to its totals: the process the attach checked,
 * its chosen threads counted (and pinned where a {@code --pin} rule says) until the duration passes, a signal comes
 * or the process exits, following the threads that start and end meanwhile. {@link StatCommand} parses the options
 * and renders what this counts; what goes wrong on the way is said here, once.
 */
final class StatSession implements AutoCloseable {
    /**
     * How often, without {@code --interval}, stat looks for threads that started or ended: /proc costs the JVM
     * nothing, but naming new threads costs it a thread dump (a safepoint), so at most once a second.
     */
    private static final Duration DEFAULT_LOOK = Duration.ofSeconds(1);

    /** How the command shows one interval's counts: each thread's, over the last {@code nanos}. */
    @FunctionalInterface
    interface Intervals {
        void show(List<ThreadRecord> samples, long nanos) throws IOException;
    }

    private final long pid;
    /** The process the attach checked; every pin, counter and read is for it alone. */
    private final ProcessIdentity process;

    private final ThreadWatch watch;
    private final ThreadsOption threads;
    private final List<JavaThreadInfo> chosen;
    private ThreadPins pinned;
    private StatThreads counted;
    /** How the pid stopped naming {@link #process} while counting; null while it names it. */
    private ProcessChangedException changed;
    /** When the last interval's samples were taken, or counting began. */
    private long sampledNanos;

    /** Whether a thread left out of the dumps for its name's length was said. */
    private boolean leftOutLongSaid;

    private long fromNanos;
    private long toNanos;
    private LocalTime fromClock;

    private StatSession(
            long pid, ProcessIdentity process, ThreadWatch watch, ThreadsOption threads, List<JavaThreadInfo> chosen) {
        this.pid = pid;
        this.process = process;
        this.watch = watch;
        this.threads = threads;
        this.chosen = chosen;
    }

    /**
     * The JVM {@code pid} checked, and its threads that {@code threads} chooses, named by its thread dump.
     *
     * @throws IllegalArgumentException when it chooses none
     */
    static StatSession look(long pid, ThreadsOption threads) throws IOException, InterruptedException {
        // Taken before the attach checks the process (its user, its libjvm.so, its socket's owner), so that what
        // they checked is this process; the thread dump then comes whenever the process chooses to answer.
        EarlyLook.Look early = EarlyLook.take(pid);
        ProcessIdentity process = early != null ? early.process() : ProcessIdentity.of(pid);
        ThreadWatch watch = early != null ? early.watch() : ThreadWatch.start(pid);
        checkedAtStart(process::check);
        List<JavaThreadInfo> chosen = selected(threads, watch.initial());
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("no thread of pid " + pid + " matches " + threads.describe());
        }
        StatSession session = new StatSession(pid, process, watch, threads, chosen);
        session.sayLeftOutLongOnce();
        return session;
    }

    private void sayLeftOutLongOnce() {
        if (watch.leftOutLong() && !leftOutLongSaid) {
            leftOutLongSaid = true;
            System.err.println("perfpin stat: a thread of process " + pid + " is not counted: its entry in the thread"
                    + " dump is over " + ThreadDump.MAX_ENTRY_CHARS / 1024 + " KiB, a name made that long");
        }
    }

    /** The threads chosen at the start. */
    List<JavaThreadInfo> chosen() {
        return chosen;
    }

    /**
     * Makes ready to count {@code events}, pinning as {@code pins} say, out of {@code budget}: nothing is opened or
     * pinned until {@link #count}.
     */
    void prepare(Syscalls syscalls, EventList events, PinOptions pins, DescriptorBudget budget) {
        // What the pins cannot do, said on stderr as the command's own lines are.
        pinned = ThreadPins.ofProcess(
                syscalls, process, text -> System.err.println(TerminalText.escape("perfpin: " + text)));
        counted = new StatThreads(syscalls, process, events, pins, pinned, budget);
    }

    /**
     * Counts the chosen threads until {@code duration} passes, {@code stop} comes or the process exits, following
     * those that start and end; with an {@code interval}, each interval's counts go to {@code intervals}, the last
     * one's too. Then the counts are read a last time, unless the process changed.
     */
    void count(StopSignal stop, Duration duration, Duration interval, Intervals intervals)
            throws IOException, InterruptedException {
        checkedAtStart(() -> counted.count(chosen, true));
        sampledNanos = System.nanoTime();
        fromNanos = sampledNanos;
        fromClock = LocalTime.now(); // its first call reads the time zone's rules: the window is already running
        follow(stop, fromNanos + duration.toNanos(), interval, intervals);
        if (unchanged()) {
            counted.read();
            if (interval != null) {
                sample(intervals);
            }
        }
        toNanos = System.nanoTime();
    }

    /** Each counted thread's totals, with the hints they give added to {@code hints}. */
    List<ThreadRecord> totals(List<Hint> hints) {
        return counted.totals(hints);
    }

    /** Why threads were not counted, or null when all were. */
    String notCounted() {
        return counted.notCounted();
    }

    /** When counting began, on the wall clock. */
    LocalTime from() {
        return fromClock;
    }

    /** How long the totals cover. */
    long countedNanos() {
        return toNanos - fromNanos;
    }

    /**
     * Whether the pid stopped naming the process checked while counting. Also when only the restores found it
     * changed: it changed after the last look.
     */
    boolean changed() {
        return changed != null || pinned.leftAlone();
    }

    /** An action before counting began, where a process that is not the one checked ends the command. */
    private static void checkedAtStart(Action action) throws IOException {
        try {
            action.run();
        } catch (ProcessChangedException e) {
            if (e.exited()) {
                throw e;
            }
            throw new ProcessChangedException(false, e.getMessage() + "; perfpin leaves it alone");
        }
    }

    private interface Action {
        void run() throws IOException;
    }

    /**
     * Whether the pid still names {@link #process}. Once it does not (it exec'd, runs as other users, or exited
     * and the pid went to another process), that is said once, and it is neither read nor pinned any more. A
     * process that just exited still is: its counters keep their final counts.
     */
    private boolean unchanged() {
        if (changed == null) {
            try {
                process.check();
            } catch (ProcessChangedException e) {
                if (!e.exited()) {
                    changed = e;
                    System.err.println(TerminalText.escape("perfpin stat: " + e.getMessage() + "; its counts end at"
                            + " the last read before, and perfpin leaves it alone"));
                }
            }
        }
        return changed == null;
    }

    /**
     * Counts until {@code deadline} ({@link System#nanoTime}), a signal comes or the process exits: every
     * {@code interval} (or {@link #DEFAULT_LOOK}) the threads that ended are finalised, those that started are
     * counted, and with an {@code interval} the interval's counts are shown.
     */
    private void follow(StopSignal stop, long deadline, Duration interval, Intervals intervals)
            throws IOException, InterruptedException {
        Duration every = interval != null ? interval : DEFAULT_LOOK;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0
                    || stop.await(left < every.toNanos() ? Duration.ofNanos(left) : every)
                    || System.nanoTime() >= deadline) {
                return;
            }
            // Before a dump, which goes to whatever process has the pid: a recycled pid would be asked.
            if (!unchanged()) {
                return;
            }
            ThreadWatch.Changes changes;
            try {
                changes = watch.look();
            } catch (AttachException e) {
                System.err.println(TerminalText.escape("perfpin stat: cannot name the threads that started: "
                        + e.getMessage() + "; they are not counted"));
                continue;
            }
            sayLeftOutLongOnce();
            counted.ended(changes.ended());
            if (changes.gone()) {
                System.err.println("perfpin stat: process " + pid + " exited while counting");
                return;
            }
            if (!unchanged()) {
                return;
            }
            if (interval != null) {
                counted.read();
                sample(intervals);
            }
            try {
                counted.count(selected(threads, changes.started()), false);
            } catch (ProcessChangedException e) {
                if (!unchanged()) {
                    return;
                }
                // it exited as its new threads were counted: the next look sees it gone
            }
        }
    }

    /** The interval's counts of each thread, handed to the command with the time they cover. */
    private void sample(Intervals intervals) throws IOException {
        long now = System.nanoTime();
        intervals.show(counted.samples(), now - sampledNanos);
        sampledNanos = now;
    }

    private static List<JavaThreadInfo> selected(ThreadsOption threads, List<JavaThreadInfo> candidates) {
        return candidates.stream().filter(t -> threads.selects(t.name())).collect(Collectors.toList());
    }

    /** Closes every counter, then gives back every pin: the threads run where they ran before. */
    @Override
    public void close() {
        try {
            if (counted != null) {
                counted.close();
            }
        } finally {
            if (pinned != null) {
                pinned.close();
            }
        }
    }
}
