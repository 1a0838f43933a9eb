package io.perfpin.cli;

import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.jvm.JavaProcess;
import io.perfpin.jvm.LastCpu;
import io.perfpin.report.Hint;
import io.perfpin.report.Hints;
import io.perfpin.report.Preemptions;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadReport;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsFileReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * A live view of a JVM that runs the perfpin agent, read from its stats file alone: the agent's sampler
 * publishes there, and this command maps it read-only, so it costs the JVM nothing and needs no attach.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = {"Watch a JVM that runs the perfpin agent: every --interval (default: the agent's own), its"
                + " live threads' counts over that interval, and the totals of the threads that finished.",
                "Runs until the JVM exits or the agent detaches, --duration passes, or Ctrl-C; then prints each"
                        + " thread's totals and hints. In a terminal it redraws in place."})
final class TopCommand implements Callable<Integer> {
    private static final String CLEAR_SCREEN = "\033[H\033[2J";

    @Parameters(paramLabel = "PID", arity = "0..1", description = "The JVM to watch.")
    Long pid;

    @Option(names = "--stats", paramLabel = "FILE",
            description = "Read this stats file instead of the one of PID in the perfpin directory.")
    Path stats;

    @Mixin
    ThreadsOption threads;

    @Mixin
    IntervalOption interval;

    @Mixin
    DurationOption duration;

    /** For run: the JVMs the watched one starts with the agent's options, shown below it; null for top and attach. */
    ChildJvms children;

    /** Set as the view ends: why threads went uncounted when no thread it shows was counted; else null. */
    private String noneCounted;
    /** The agent's notices printed so far, in plain blocks, where each is printed once. */
    private int noticesPrinted;
    /** Set as the view ends: how many things the agent refused to do that its options asked. */
    private int refusals;

    @Override
    public Integer call() throws Exception {
        if (pid == null && stats == null) {
            throw new IllegalArgumentException("no JVM given: expected a PID, or --stats FILE");
        }
        Path file = stats != null ? stats : AgentStatsFile.of(pid);
        if (!Files.exists(file)) {
            if (stats != null) {
                throw new IllegalStateException("no stats file at " + file);
            }
            JavaProcess.of(pid); // no such process, another user's, or no JVM: each has its own exit code
            throw new NoAgentException(pid, file);
        }
        // A file damaged when it is opened, or while it is watched, ends the view with one line.
        try (StatsFileReader reader = StatsFileReader.open(file)) {
            return watch(reader);
        } catch (IOException e) {
            throw FileErrors.unreadableStatsFile(file, e);
        }
    }

    private int watch(StatsFileReader reader) throws IOException, InterruptedException {
        long watched = pid != null ? pid : reader.pid();
        Duration every = interval.orElse(Duration.ofNanos(reader.intervalNanos()));
        boolean terminal = isTerminal();
        long deadline = duration.given() == null ? Long.MAX_VALUE : System.nanoTime() + duration.given().toNanos();
        String ending;
        try (StopSignal stop = StopSignal.install()) {
            StatsView previous = StatsView.read(reader);
            while (true) {
                ending = ending(reader, watched, deadline);
                if (ending != null) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (stop.await(left < every.toNanos() ? Duration.ofNanos(left) : every)) {
                    ending = "stopped";
                    break;
                }
                StatsView current = StatsView.read(reader);
                List<String> lines = block(watched, current, previous, terminal);
                if (children != null) {
                    lines.addAll(children.frame(terminal));
                }
                show(lines, terminal);
                previous = current;
            }
            summary(StatsView.read(reader), watched, ending).forEach(System.out::println);
        }
        return ExitCode.OK;
    }

    /** Why the view ends now, or null while it goes on. */
    private String ending(StatsFileReader reader, long watched, long deadline) throws IOException {
        if (reader.isClosed()) {
            return "the agent closed its stats file: the JVM exited or the agent detached";
        }
        if (!JavaProcess.isRunning(watched)) {
            return "process " + watched + " is gone and never closed its stats file (killed?)";
        }
        if (System.nanoTime() >= deadline) {
            return "--duration passed";
        }
        return null;
    }

    /** One frame of one JVM: its live threads over the time since {@code previous}, finished totals, notices. */
    List<String> block(long watched, StatsView current, StatsView previous, boolean terminal) {
        List<ThreadReport> live = selected(current.liveSince(previous)).stream()
                .map(r -> r.withLastCpu(LastCpu.of(watched, r.tid())))
                .collect(Collectors.toList());
        List<String> lines = new ArrayList<>();
        lines.add("--- " + LocalTime.now().truncatedTo(ChronoUnit.MILLIS) + "  pid " + watched + "  live threads: "
                + current.liveThreads() + ", their counts over the last interval"
                + (current.threadsNotCounted() > 0 ? "; threads not counted: " + notCounted(current) : "") + " ---");
        lines.addAll(live.isEmpty() ? List.of("(no live thread matches " + threads.describe() + ")")
                : ReportTable.render(live));
        ThreadReport finished = current.finishedTotal();
        if (finished != null) {
            lines.add("Finished threads, totals:");
            lines.addAll(ReportTable.render(List.of(finished)));
        }
        // A redrawn screen shows every notice; plain blocks, which stay on screen, each one once.
        List<AgentNotice> notices = current.notices();
        lines.addAll(noticeLines(notices.subList(terminal ? 0 : Math.min(noticesPrinted, notices.size()),
                notices.size())));
        noticesPrinted = notices.size();
        return lines;
    }

    /** The agent's notices, in this command's output, which is where the agent's user reads. */
    private static List<String> noticeLines(List<AgentNotice> notices) {
        return notices.stream().map(n -> (n.refused() ? "agent refused: " : "agent: ") + TerminalText.escape(n.text()))
                .collect(Collectors.toList());
    }

    private List<String> summary(StatsView last, long watched, String ending) {
        List<ThreadReport> live = selected(last.liveTotals());
        List<ThreadReport> ended = selected(last.finishedThreads());
        List<ThreadReport> rows = new ArrayList<>(live);
        rows.addAll(ended);
        List<Hint> hints = new ArrayList<>();
        // A live thread's switches in /proc count from its start, as the agent's counters do; an ended
        // thread's TID may be another thread's by now.
        live.forEach(r -> hints.addAll(Hints.of(r, false, Preemptions.of(watched, r.tid()))));
        ended.forEach(r -> hints.addAll(Hints.of(r, false, OptionalLong.empty())));
        ThreadReport finished = last.finishedTotal();
        if (finished != null) {
            rows.add(finished);
        }
        List<String> lines = new ArrayList<>();
        lines.add("perfpin top: " + ending + ". Totals per thread since it was enrolled:");
        lines.addAll(rows.isEmpty() ? List.of("(no thread matches " + threads.describe() + ")")
                : ReportTable.render(rows));
        if (last.threadsNotCounted() > 0) {
            lines.add("Threads not counted: " + notCounted(last));
            noneCounted = rows.isEmpty() ? "threads not counted: " + notCounted(last) : null;
        }
        lines.addAll(noticeLines(last.notices()));
        refusals = (int) last.notices().stream().filter(AgentNotice::refused).count();
        lines.addAll(ReportOutput.hintLines(hints));
        return lines;
    }

    /** How many threads the agent could not count, and why, as its stats file says. */
    private static String notCounted(StatsView view) {
        return view.threadsNotCounted() + ", out of file descriptors (perfpin may hold " + view.descriptorBudget()
                + ": agent option fds=)";
    }

    /**
     * After {@link #call}: when the agent counted none of the threads shown and left some uncounted for want of
     * file descriptors, those threads and why; null otherwise.
     */
    String noneCounted() {
        return noneCounted;
    }

    /** After {@link #call}: how many things the agent could not do that its options asked (its refusals). */
    int refusals() {
        return refusals;
    }

    private List<ThreadReport> selected(List<ThreadReport> reports) {
        return reports.stream().filter(r -> threads.selects(r.name())).collect(Collectors.toList());
    }

    private static void show(List<String> lines, boolean terminal) {
        if (terminal) {
            System.out.print(CLEAR_SCREEN);
        }
        lines.forEach(System.out::println);
        System.out.flush();
    }

    /**
     * Whether standard output is a terminal to redraw. From JDK 22, System.console() exists even when output
     * is redirected, and Console.isTerminal() tells; before, a console is a terminal.
     */
    private static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException beforeJdk22) {
            return true;
        }
    }
}
