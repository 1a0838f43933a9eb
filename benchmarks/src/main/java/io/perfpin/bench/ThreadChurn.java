package io.perfpin.bench;

import io.perfpin.apps.ThreadChurner;

import java.io.IOException;
import java.util.List;

/**
 * Benchmark 5a: what it costs to start and end a thread that the agent counts. {@link ThreadChurner} starts
 * {@value #THREADS} short threads that touch no memory, at most four at once, without and with the agent (which
 * counts every one of them by default), in alternating child JVMs; the difference of its own timing, per thread.
 */
final class ThreadChurn {
    static final int THREADS = 2000;
    private static final double TARGET_MICROS = 100;

    private ThreadChurn() {
    }

    /** @param enrolMicros what opening a thread's counters took in process ({@link SamplerCost}), to explain a miss */
    static Section run(Workspace workspace, Summary enrolMicros) throws IOException, InterruptedException {
        JavaCommand plain = workspace.app(ThreadChurner.class, "--threads", Integer.toString(THREADS), "--pages", "0");
        JavaCommand agent = plain.withJvmOption(workspace.agentOption(null));
        Alternation.Runs runs = Alternation.run(i -> plain, i -> agent, workspace.runs());
        Summary without = Summary.of(runs.first().stream().map(r -> r.resultValue("ms")).toList());
        Summary with = Summary.of(runs.second().stream().map(r -> r.resultValue("ms")).toList());
        // ms for all threads, so ms × 1000 / threads is µs per thread
        Summary extra = Summary.difference(with, without).scaled(1000.0 / THREADS);
        Summary perThreadWithout = without.scaled(1000.0 / THREADS);
        Summary perThreadWith = with.scaled(1000.0 / THREADS);
        MarkdownTable table = new MarkdownTable("", "without agent", "with agent (counted)", "difference")
                .row("µs per thread started and ended: median (min–max)", perThreadWithout.format(1),
                        perThreadWith.format(1), extra.format(1))
                .row("threads per second", Summary.number(1e6 / perThreadWithout.median(), 0),
                        Summary.number(1e6 / perThreadWith.median(), 0), "");
        Headline headline = new Headline("counted thread start + end (ThreadChurner): extra per thread",
                Summary.number(1e6 / perThreadWith.median(), 0) + " threads/s",
                Summary.number(1e6 / perThreadWithout.median(), 0) + " threads/s", extra.format(1) + " µs",
                "< " + (int) TARGET_MICROS + " µs", Verdict.atMost(extra, TARGET_MICROS,
                v -> Summary.number(v, 1) + " µs", "opening a thread's counters alone (`enrolCurrentThread`,"
                        + " events ipc,sched, 5b) takes " + enrolMicros.format(1) + " µs; closing them and the final"
                        + " record fall on the sampler"));
        return new Section("5a. Enrolment: thread start and end", List.of(headline), List.of(table), List.of(
                "`ThreadChurner --threads " + THREADS + " --pages 0`, " + workspace.runs() + " runs each way,"
                        + " alternating, after one untimed pair; its `ms` figure spans starting and joining all"
                        + " threads. Without the agent this is what a thread costs on this machine at all."));
    }
}
