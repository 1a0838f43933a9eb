package io.perfpin.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Benchmark 2: each workload's own throughput figure without and with {@code -javaagent} at its defaults
 * (the application's threads counted for the default events, {@code sched}, sampled every 500 ms, the stats file
 * published), in alternating child JVMs.
 */
final class AgentOverhead {
    /** At most 1% of the throughput lost to perfpin. */
    private static final double TARGET_LOST_PERCENT = 1;

    private AgentOverhead() {}

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        List<Headline> headlines = new ArrayList<>();
        MarkdownTable table = new MarkdownTable(
                "workload",
                "figure (its result line)",
                "better",
                "without agent: median (min–max)",
                "with agent",
                "throughput lost with the agent");
        for (WorkloadFigure workload : WorkloadFigure.ALL) {
            Alternation.Runs runs = Alternation.run(
                    i -> workspace.app(workload.main()),
                    i -> workspace.app(workload.main()).withJvmOption(workspace.agentOption(null)),
                    workspace.runs());
            Summary without = Summary.of(runs.first().stream().map(workload::of).toList());
            Summary with = Summary.of(runs.second().stream().map(workload::of).toList());
            // The share of the throughput without the agent that it costs: what the agent adds, as a throughput
            Summary lost = workload.throughputRatio(with, without).below(1).scaled(100);
            String name = workload.main().getSimpleName();
            table.row(
                    name,
                    workload.figure(),
                    workload.higherIsBetter() ? "higher" : "lower",
                    without.format(),
                    with.format(),
                    lost.format(1) + "%");
            headlines.add(Headline.alone(
                    "workload throughput lost with the agent: " + name,
                    without.format() + " " + workload.figure(),
                    lost.format(1) + "%",
                    "",
                    "≤ " + Summary.number(TARGET_LOST_PERCENT, 0) + "%",
                    Verdict.atMost(lost, TARGET_LOST_PERCENT, v -> Summary.number(v, 1) + "%", "")));
        }
        return new Section(
                "2. Agent overhead on the workloads",
                headlines,
                List.of(table),
                List.of(
                        "Each workload runs with its default options in " + workspace.runs()
                                + " child JVMs without and "
                                + workspace.runs()
                                + " with the agent, alternating, after one untimed pair. The share lost"
                                + " is one less the ratio of the medians' throughputs; its spread runs from the"
                                + " least to the greatest any two runs give.",
                        "Each workload times itself for well under a second, soon after its JVM starts. With the"
                                + " agent that time overlaps the end of the agent's own start (benchmark 3), on the"
                                + " same two CPUs; this benchmark does not separate the two from the overhead of"
                                + " counting in steady state."));
    }
}
