package io.perfpin.cli;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.JavaThreadInfo;
import io.perfpin.jvm.ProcessChangedException;
import io.perfpin.jvm.ProcessIdentity;
import io.perfpin.jvm.ThreadDump;
import io.perfpin.jvm.ThreadWatch;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.DescriptorShare;
import io.perfpin.options.PinRule;
import io.perfpin.report.Hint;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Counts another JVM's threads without loading anything into it, like {@code perf stat -p} with Java names: the
 * JVM's own thread dump maps each Java thread to its TID, and perfpin opens counters on those TIDs from outside.
 * It follows the threads that start and end meanwhile ({@link ThreadWatch}); with {@code --interval} it shows
 * each interval's counts as {@code perf stat -I} does. With {@code --pin}, the chosen threads run where the rules
 * say while they are counted, and get their own CPUs back afterwards.
 */
@Command(
        name = "stat",
        mixinStandardHelpOptions = true,
        description = {
            "Count a running JVM's threads from outside, named by its thread dump; no agent is loaded.",
            "Counts for --duration (default 5s), or until Ctrl-C, following the chosen threads that start and"
                    + " end meanwhile: it looks for them every --interval, and shows that interval's counts;"
                    + " without --interval it looks once a second and shows only the totals. --pin pins the"
                    + " chosen threads meanwhile."
        })
final class StatCommand implements Callable<Integer> {
    private static final Duration DEFAULT_DURATION = Duration.ofSeconds(5);
    /**
     * How often, without {@code --interval}, stat looks for threads that started or ended: /proc costs the JVM
     * nothing, but naming new threads costs it a thread dump (a safepoint), so at most once a second.
     */
    private static final Duration DEFAULT_LOOK = Duration.ofSeconds(1);

    @Parameters(paramLabel = "PID", arity = "0..1", description = "The JVM to count.")
    Long positionalPid;

    @Option(names = "--pid", paramLabel = "PID", description = "The JVM to count, as PID does (kept for scripts).")
    Long pidOption;

    private long pid;

    @Mixin
    ThreadsOption threads;

    @Mixin
    PinOptions pins;

    @Mixin
    EventsOption events;

    @Mixin
    DurationOption duration;

    @Mixin
    IntervalOption interval;

    @Option(
            names = "--fds",
            paramLabel = "SHARE",
            converter = Share.class,
            description = "The file descriptors stat may hold, one per event per counted thread: a share of those"
                    + " it has free (default 90%%: it is perfpin's own process), or a number; threads beyond it are"
                    + " listed not counted.")
    DescriptorShare fds = DescriptorShare.OWN_PROCESS;

    @Option(
            names = "--virtual",
            paramLabel = "REGEX",
            description = "Not for stat, which counts from outside, where the kernel sees only the carrier threads:"
                    + " virtual threads are counted by the agent (attach --virtual, run --virtual); stat refuses it"
                    + " with one line.")
    String virtual;

    @Mixin
    ViewOptions view;

    @Mixin
    OutputOptions output;

    /** When the last interval's samples were taken, or counting began. */
    private long sampledNanos;
    /** The process the attach checked; every pin, counter and read is for it alone. */
    private ProcessIdentity process;
    /** How the pid stopped naming {@link #process} while counting; null while it names it. */
    private ProcessChangedException changed;

    /**
     * Starts, on a daemon thread, what stat needs first after its options and that depends on none of them: the
     * backend (the JNI library extracted and loaded), the JDK's Unix domain sockets (whose first use seeds a
     * SecureRandom) and the thread dump's parser. picocli reading the options is most of stat's start; these now
     * take their time beside it, not after it. The JVM to count is only looked at ({@link EarlyLook}), and nothing
     * is said: what fails here fails again where stat meets it, and is said there.
     */
    static void prepare(String[] args) {
        Runnable look = EarlyLook.plan(args);
        Thread prepare = new Thread(
                () -> {
                    look.run();
                    try {
                        Backends.syscalls();
                        SocketChannel.open(StandardProtocolFamily.UNIX).close();
                        ThreadDump.parse("");
                    } catch (IOException | RuntimeException | LinkageError e) {
                        // met again, and said, where stat needs it
                    }
                },
                "perfpin-prepare");
        prepare.setDaemon(true);
        prepare.start();
    }

    @Override
    public Integer call() throws Exception {
        if (virtual != null) {
            throw new IllegalArgumentException("--virtual '" + virtual + "': stat counts from outside, where the kernel"
                    + " sees only the carrier threads a virtual thread runs on; count virtual threads with the agent:"
                    + " perfpin attach PID --virtual REGEX");
        }
        pid = pid();
        EventList eventList = events.eventList();
        // Counted before perfpin opens anything of its own for this: what it has free is what it shares out.
        DescriptorBudget budget = DescriptorBudget.forThisProcess(fds, "--fds=", "--fds");
        // Taken before the attach checks the process (its user, its libjvm.so, its socket's owner), so that what
        // they checked is this process; the thread dump then comes whenever the process chooses to answer.
        EarlyLook.Look early = EarlyLook.take(pid);
        process = early != null ? early.process() : ProcessIdentity.of(pid);
        ThreadWatch watch = early != null ? early.watch() : ThreadWatch.start(pid);
        checkedAtStart(process::check);
        List<JavaThreadInfo> chosen = selected(watch.initial());
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("no thread of pid " + pid + " matches " + threads.describe());
        }
        warnUnmatchedRules(chosen);
        Syscalls syscalls = Backends.syscalls();
        String simulated = Backends.simulatedPmuNotice(syscalls);
        if (simulated != null) {
            System.err.println("perfpin stat: " + simulated);
        }
        // What the pins cannot do, said on stderr as the command's own lines are.
        ThreadPins pinned = ThreadPins.ofProcess(
                syscalls, process, text -> System.err.println(TerminalText.escape("perfpin: " + text)));
        try (StopSignal stop = StopSignal.install();
                ReportOutput out = output.open();
                pinned;
                StatThreads counted = new StatThreads(syscalls, process, eventList, pins, pinned, budget)) {
            TableLayout table = view.table();
            out.layout(table);
            checkedAtStart(() -> counted.count(chosen, true));
            sampledNanos = System.nanoTime();
            long from = sampledNanos;
            LocalTime fromClock = LocalTime.now();
            follow(watch, counted, stop, out, eventList);
            if (unchanged()) {
                counted.read();
                if (interval.interval != null) {
                    sample(counted, out, eventList);
                }
            }
            long to = System.nanoTime();
            List<Hint> hints = new ArrayList<>();
            List<ThreadRecord> totals = counted.totals(hints);
            String notCounted = counted.notCounted();
            if (notCounted != null) {
                System.err.println(TerminalText.escape("perfpin stat: " + notCounted));
            }
            out.records(totals, eventList.names(), table);
            if (out.format() == ReportFormat.TABLE) {
                // As perf stat's "seconds time elapsed": what the totals cover, on the clock the intervals' blocks
                // use. CSV and JSON carry each thread's own window (wallNanos), and their stderr stays for problems.
                out.say(List.of("counts over " + CountText.seconds(to - from) + " (from "
                        + fromClock.format(LiveFrames.CLOCK) + " to "
                        + fromClock.plusNanos(to - from).format(LiveFrames.CLOCK) + ")"));
                if (Backends.simulatedPmu() != null) {
                    out.say(List.of(ReportOutput.simulatedPmu(Backends.simulatedPmu())));
                }
            }
            out.hints(hints);
        }
        // Also when only the restores found it changed: it changed after the last look.
        return changed != null || pinned.leftAlone() ? ExitCode.PROCESS_CHANGED : ExitCode.OK;
    }

    /** An action before counting began, where a process that is not the one checked ends the command. */
    private void checkedAtStart(Action action) throws IOException {
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
     * Counts until {@code --duration} passes, a signal comes or the process exits: every interval (or
     * {@link #DEFAULT_LOOK}) the threads that ended are finalised, those that started are counted, and with
     * {@code --interval} the interval's counts are shown.
     */
    private void follow(ThreadWatch watch, StatThreads counted, StopSignal stop, ReportOutput out, EventList eventList)
            throws IOException, InterruptedException {
        Duration every = interval.orElse(DEFAULT_LOOK);
        long deadline = System.nanoTime() + duration.orElse(DEFAULT_DURATION).toNanos();
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
            counted.ended(changes.ended());
            if (changes.gone()) {
                System.err.println("perfpin stat: process " + pid + " exited while counting");
                return;
            }
            if (!unchanged()) {
                return;
            }
            if (interval.interval != null) {
                counted.read();
                sample(counted, out, eventList);
            }
            try {
                counted.count(selected(changes.started()), false);
            } catch (ProcessChangedException e) {
                if (!unchanged()) {
                    return;
                }
                // it exited as its new threads were counted: the next look sees it gone
            }
        }
    }

    /** The positional PID, or --pid: one, and only one JVM. */
    private long pid() {
        if (positionalPid == null && pidOption == null) {
            throw new IllegalArgumentException("no JVM given: expected a PID");
        }
        if (positionalPid != null && pidOption != null && !positionalPid.equals(pidOption)) {
            throw new IllegalArgumentException(
                    "two JVMs given: PID " + positionalPid + " and --pid " + pidOption + "; give one");
        }
        return positionalPid != null ? positionalPid : pidOption;
    }

    /** The interval's counts of each thread, under a line that says when and over how long. */
    private void sample(StatThreads counted, ReportOutput out, EventList eventList) throws IOException {
        long now = System.nanoTime();
        List<ThreadRecord> samples = counted.samples();
        out.interval(
                "--- " + LocalTime.now().format(LiveFrames.CLOCK) + "  perfpin stat  pid " + pid
                        + "  threads: " + samples.size() + ", their counts over the last "
                        + String.format(Locale.ROOT, "%.3f", (now - sampledNanos) / 1e9) + " s ---",
                List.of(),
                samples,
                eventList.names(),
                "(no thread was counted in this interval)");
        sampledNanos = now;
    }

    private List<JavaThreadInfo> selected(List<JavaThreadInfo> candidates) {
        return candidates.stream().filter(t -> threads.selects(t.name())).collect(Collectors.toList());
    }

    /** A rule that matches none of the threads chosen at the start is a likely typo. */
    private void warnUnmatchedRules(List<JavaThreadInfo> chosen) {
        for (PinRule rule : pins.rules()) {
            if (chosen.stream().noneMatch(t -> rule.matches(t.name()))) {
                System.err.println(TerminalText.escape("perfpin stat: --pin '" + rule + "' matches none of the"
                        + " counted threads (" + threads.describe() + ")"));
            }
        }
    }

    static final class Share implements ITypeConverter<DescriptorShare> {
        @Override
        public DescriptorShare convert(String token) {
            return DescriptorShare.parse(token);
        }
    }
}
