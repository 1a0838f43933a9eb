package io.perfpin.bench;

import io.perfpin.apps.PoolStart;
import io.perfpin.options.AgentOptionText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Benchmark 11: a pool's start, where every thread keeps its counters open while the next starts: {@link PoolStart}
 * starts {@value #THREADS} threads that stay, timing each start to its first instruction, in alternating child JVMs
 * without an agent, with perfpin's (default events, a descriptor for each of six counters per thread) and with
 * async-profiler ({@code event=cpu}, one per thread). The slowest start is the figure: where the descriptors fill the
 * process's table, the thread that opens the next one waits while the kernel doubles the table (an RCU grace period,
 * milliseconds), which a median hides.
 */
final class PoolStartLatency {
    static final int THREADS = 200;
    private static final double TARGET_RATIO = 1.0;

    private PoolStartLatency() {}

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        JavaCommand plain = workspace.app(PoolStart.class, "--threads", Integer.toString(THREADS));
        AsyncProfiler peer = workspace.asyncProfiler();
        List<IntFunction<JavaCommand>> configurations =
                new ArrayList<>(List.of(i -> plain, i -> plain.withJvmOption(workspace.agentOption(null))));
        if (peer.missing() == null) {
            configurations.add(
                    i -> plain.withJvmOption(peer.agentOption(workspace.scratch("pool-" + i + ".collapsed"))));
        }
        List<List<ChildRun>> runs = Alternation.run(configurations, workspace.runs());
        Summary none = slowest(runs.get(0));
        Summary perfpin = slowest(runs.get(1));
        Summary profiler = peer.missing() == null ? slowest(runs.get(2)) : null;

        MarkdownTable table = new MarkdownTable(
                "",
                "slowest start, ms: median (min–max)",
                "over no agent",
                "median start, ms",
                "starts over 2 ms, per run: median (min–max)");
        row(table, "no agent", runs.get(0), none, none);
        row(
                table,
                "perfpin agent, default events (" + AgentOptionText.DEFAULT_EVENTS + ")",
                runs.get(1),
                perfpin,
                none);
        if (profiler != null) {
            row(table, peer.name() + ", " + AsyncProfiler.optionsText(), runs.get(2), profiler, none);
        } else {
            table.row("async-profiler", "not measured: " + peer.missing(), "", "", "");
        }

        Cost cost = Cost.measured(none, perfpin, profiler);
        String target = "≤ " + TARGET_RATIO + "x the peer's addition";
        Verdict verdict = Verdict.ratioAtMost(
                cost,
                TARGET_RATIO,
                peer,
                "a thread that opens the descriptor that does not fit waits while the kernel grows the process's table");
        Headline headline = Headline.of(
                "a pool's start, " + THREADS + " threads that stay: the slowest start",
                cost,
                peer.name(),
                s -> s.format(2) + " ms",
                "",
                target,
                verdict);
        List<String> notes = List.of(
                "`PoolStart --threads " + THREADS + "`, " + workspace.runs() + " runs of each configuration,"
                        + " alternating, after one untimed round. A start is timed from just before Thread.start() to"
                        + " the first instruction of the thread's run(); the next starts once it ran; every thread"
                        + " stays until the last has started. One thread starts and ends untimed first.",
                "perfpin grows the descriptor table ahead of its counters: for 64 threads' counters as the agent"
                        + " starts, on a thread of its own; then the sampler doubles it once a quarter of it is in use,"
                        + " woken by the first thread whose counters reach that mark.");
        return new Section(
                "11. A pool's start: the slowest of its threads' starts", List.of(headline), List.of(table), notes);
    }

    private static Summary slowest(List<ChildRun> runs) {
        return Summary.of(
                runs.stream().mapToDouble(r -> r.resultValue("slowest-ms")).toArray());
    }

    private static void row(MarkdownTable table, String what, List<ChildRun> runs, Summary slowest, Summary none) {
        table.row(
                what,
                slowest.format(2),
                slowest == none ? "" : Summary.difference(slowest, none).format(2),
                Summary.of(runs.stream()
                                .mapToDouble(r -> r.resultValue("median-ms"))
                                .toArray())
                        .format(3),
                Summary.of(runs.stream()
                                .mapToDouble(r -> r.resultValue("over-2ms"))
                                .toArray())
                        .format(0));
    }
}
