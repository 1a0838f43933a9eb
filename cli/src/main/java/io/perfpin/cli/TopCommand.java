package io.perfpin.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A live view of a JVM that runs the perfpin agent, read from its stats file alone: the agent's sampler
 * publishes there, and this command maps it read-only, so it costs the JVM nothing and needs no attach.
 */
@Command(
        name = "top",
        mixinStandardHelpOptions = true,
        description = {
            "Watch a JVM that runs the perfpin agent: each time the agent has sampled and --interval"
                    + " (default: the agent's own) has passed, its live threads' counts over that window, in the"
                    + " agent's time.",
            "Runs until the JVM exits or the agent detaches, --duration passes, Ctrl-C, or q in a terminal; then"
                    + " prints each thread's totals and hints. In a terminal it redraws in place (keys: q quits, s"
                    + " sorts by the next column, p pauses); otherwise it writes plain blocks, CSV rows or JSON"
                    + " lines (--format)."
        })
final class TopCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PID", converter = PidParser.class, arity = "0..1", description = "The JVM to watch.")
    Long pid;

    @Option(
            names = "--stats",
            paramLabel = "FILE",
            description = "Read this stats file instead of the one of PID in the perfpin directory.")
    Path stats;

    @Mixin
    ThreadsOption threads;

    @Mixin
    IntervalOption interval;

    @Mixin
    DurationOption duration;

    @Mixin
    ViewOptions view;

    @Mixin
    OutputOptions output;

    @Override
    public Integer call() throws Exception {
        if (pid == null && stats == null) {
            throw new IllegalArgumentException("no JVM given: expected a PID, or --stats FILE");
        }
        try (ReportOutput out = output.open(stats == null ? List.of() : List.of(stats))) {
            return AgentSession.watch("top", pid, stats, threads, interval.interval, duration.given(), view, out, null)
                    .ending()
                    .exitCode();
        }
    }
}
