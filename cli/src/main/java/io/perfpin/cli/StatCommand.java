package io.perfpin.cli;

import io.perfpin.StopSignal;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.KernelReadiness;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.cpu.CpuSet;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.jvm.JavaThreadInfo;
import io.perfpin.jvm.ThreadDump;
import io.perfpin.jvm.ThreadWatch;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.DescriptorShare;
import io.perfpin.options.PinRule;
import io.perfpin.report.Hint;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
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
    private static final int EVENTS_AHEAD = 8;
    /** A table of 64K descriptors takes 512 KiB of the kernel's memory. */
    private static final int MOST_AHEAD = 65_536;
    /** One thread's entry of a dump, as JDK 17 prints it, for the parser's first run. */
    private static final String PARSER_WARM_UP = "\"main\" #1 prio=5 os_prio=0 cpu=1.00ms elapsed=1.00s"
            + " tid=0x00007f0000000000 nid=0x1 runnable  [0x00007f0000000000]\n"
            + "   java.lang.Thread.State: RUNNABLE\n";

    @Parameters(paramLabel = "PID", converter = PidParser.class, arity = "0..1", description = "The JVM to count.")
    Long positionalPid;

    @Option(
            names = "--pid",
            paramLabel = "PID",
            converter = PidParser.class,
            description = "The JVM to count, as PID does (kept for scripts).")
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
            converter = DescriptorShareParser.class,
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

    /**
     * Starts, each on a daemon thread of its own, what stat will need and that depends on no option: the backend (the
     * JNI library extracted and loaded) and the thread dump's parser, after the look at the JVM; the end of a count
     * ({@link #rehearse}), which must be done before the count begins, so not after the look; and what the kernel
     * makes the first counters wait for ({@link KernelReadiness}). picocli making the options' model (from the model
     * the build wrote: {@link CommandModel}) is most of stat's start; these now take their time beside it, not after
     * it. The JVM to count is only looked at ({@link EarlyLook}). Classes, not lambdas: linking a lambda's call site
     * is time on the main thread before picocli starts.
     */
    static void prepare(String[] args) {
        Runnable look = EarlyLook.plan(args);
        long guessed = EarlyLook.guess(args);
        boolean looking = new Aside("perfpin-prepare") {
            @Override
            void work() throws IOException {
                if (look != null) {
                    look.run();
                }
                Backends.syscalls();
                ThreadDump.parse(PARSER_WARM_UP);
            }
        }.begin();
        if (!looking) {
            EarlyLook.forget();
        }
        new Aside("perfpin-rehearse") {
            @Override
            void work() {
                rehearse();
            }
        }.begin();
        new Aside("perfpin-kernel") {
            @Override
            void work() {
                KernelReadiness.prepare(Backends.syscalls(), descriptorsFor(guessed));
            }
        }.begin();
    }

    /**
     * stat's end, rehearsed on one thread: this one, counted by the default events, its totals and hints, the table,
     * CSV and JSON of them and the line under the table, which go nowhere. The classes initialised and call sites
     * linked here, beside picocli, are not after the window, where stat spent 40 to 60 ms on 100 threads of a busy
     * two-CPU host, half of it on code run for the first time. Its counters are perfpin's own thread's: the target is
     * not touched, and they hold a few descriptors for a few milliseconds, perhaps as --fds takes its share of those
     * free (of thousands).
     */
    private static void rehearse() {
        Syscalls syscalls = Backends.syscalls();
        EventList events = EventList.parse(EventsOption.DEFAULT, new EventParser());
        Thread self = Thread.currentThread();
        JavaThreadInfo thread =
                new JavaThreadInfo(self.getName(), self.getId(), syscalls.gettid(), true, Thread.State.RUNNABLE);
        try (CountedThread counted = CountedThread.open(
                syscalls,
                ProcessHandle.current().pid(),
                thread,
                events,
                new RefusedEvents(),
                DescriptorBudget.unbounded(),
                CpuSet.EMPTY,
                false)) {
            counted.read();
            ThreadRecord totals = counted.totals(System.currentTimeMillis(), new ArrayList<>());
            // Two rows, so that the table sorts them; every format, since --format is not parsed yet.
            for (ReportFormat format : List.of(ReportFormat.TABLE, ReportFormat.CSV, ReportFormat.JSON)) {
                format.render(List.of(totals, totals), events.names(), new ViewOptions().table());
            }
            covered(LocalTime.MIDNIGHT, 0);
        }
    }

    /**
     * A daemon thread that does its work saying nothing: what fails there fails again where stat meets it, and is
     * said there, and a daemon's uncaught error would print its trace.
     */
    private abstract static class Aside extends Thread {
        Aside(String name) {
            super(name);
            setDaemon(true);
        }

        /**
         * Starts it, unless the system has no thread for it (a cgroup's pids.max reached): false then. Its work is
         * only ahead of time, and stat does it where it needs it.
         */
        boolean begin() {
            try {
                start();
                return true;
            } catch (OutOfMemoryError | RuntimeException e) {
                return false; // stat meets the same work later, on its own thread
            }
        }

        abstract void work() throws IOException;

        @Override
        public final void run() {
            try {
                work();
            } catch (Throwable e) {
                // met again, and said, where stat needs it
            }
        }
    }

    /**
     * The descriptors that counting {@code pid} may take, for the kernel to make room for ahead: every thread it has
     * now, with up to {@value #EVENTS_AHEAD} events each (sched's six, and two more), and at most {@value
     * #MOST_AHEAD}, since the JVM decides how many threads it has. None when stat has no guess.
     */
    private static int descriptorsFor(long pid) {
        String[] tasks = pid < 0 ? null : new File("/proc/" + pid + "/task").list();
        return tasks == null ? 0 : (int) Math.min((long) tasks.length * EVENTS_AHEAD, MOST_AHEAD);
    }

    @Override
    public Integer call() throws Exception {
        if (virtual != null) {
            throw new IllegalArgumentException("--virtual '" + virtual + "': stat counts from outside, where the kernel"
                    + " sees only the carrier threads a virtual thread runs on; count virtual threads with the agent:"
                    + " perfpin attach PID --virtual REGEX");
        }
        pid = pid();
        view.checkColumns(events.events);
        EventList eventList = events.eventList();
        // Counted before perfpin opens anything of its own for this: what it has free is what it shares out.
        DescriptorBudget budget = DescriptorBudget.forThisProcess(fds, "--fds=", "--fds");
        StatSession session = StatSession.look(pid, threads);
        warnUnmatchedRules(session.chosen());
        Syscalls syscalls = Backends.syscalls();
        String simulated = Backends.simulatedPmuNotice(syscalls);
        if (simulated != null) {
            System.err.println("perfpin stat: " + simulated);
        }
        session.prepare(syscalls, eventList, pins, budget);
        try (StopSignal stop = StopSignal.install();
                ReportOutput out = output.open();
                session) {
            TableLayout table = view.table();
            out.layout(table);
            session.count(
                    stop,
                    duration.orElse(DEFAULT_DURATION),
                    interval.interval,
                    (samples, nanos) -> sample(out, eventList, samples, nanos));
            List<Hint> hints = new ArrayList<>();
            List<ThreadRecord> totals = session.totals(hints);
            String notCounted = session.notCounted();
            if (notCounted != null) {
                System.err.println(TerminalText.escape("perfpin stat: " + notCounted));
            }
            out.records(totals, eventList.names(), table);
            if (out.format() == ReportFormat.TABLE) {
                // As perf stat's "seconds time elapsed": what the totals cover, on the clock the intervals' blocks
                // use. CSV and JSON carry each thread's own window (wallNanos), and their stderr stays for problems.
                out.say(List.of(covered(session.from(), session.countedNanos())));
                if (Backends.simulatedPmu() != null) {
                    out.say(List.of(ReportOutput.simulatedPmu(Backends.simulatedPmu())));
                }
            }
            out.hints(hints);
        }
        return session.changed() ? ExitCode.PROCESS_CHANGED : ExitCode.OK;
    }

    /** The line under a table that says what its totals cover: {@code nanos} from {@code from}. */
    private static String covered(LocalTime from, long nanos) {
        return "counts over " + CountText.seconds(nanos) + " (from " + from.format(LiveFrames.CLOCK) + " to "
                + from.plusNanos(nanos).format(LiveFrames.CLOCK) + ")";
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
    private void sample(ReportOutput out, EventList eventList, List<ThreadRecord> samples, long nanos)
            throws IOException {
        out.interval(
                "--- " + LocalTime.now().format(LiveFrames.CLOCK) + "  perfpin stat  pid " + pid
                        + "  threads: " + samples.size() + ", their counts over the last "
                        + String.format(Locale.ROOT, "%.3f", nanos / 1e9) + " s ---",
                List.of(),
                samples,
                eventList.names(),
                "(no thread was counted in this interval)");
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
}
