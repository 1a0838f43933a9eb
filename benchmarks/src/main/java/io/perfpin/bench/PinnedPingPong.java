package io.perfpin.bench;

import io.perfpin.apps.PingPong;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.report.Recording;
import io.perfpin.report.ThreadRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Benchmark 7: {@link PingPong}'s round trip with ping and pong pinned by the agent to two different CPUs,
 * against the same agent counting them unpinned, in alternating child JVMs. Both run the agent, so the pin
 * is the only difference; the migrations come from the agent's recording ({@code out=}), the final
 * {@code cpu-migrations} of ping and of pong, summed.
 */
final class PinnedPingPong {
    private static final String TITLE = "7. Pinned versus unpinned ping-pong";

    private PinnedPingPong() {}

    /** The three figures of each run. */
    private record Figures(List<Double> medians, List<Double> p99s, List<Double> migrations) {
        Figures() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }
    }

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        CpuSet allowed = CpuTopology.live().allowed();
        if (allowed.size() < 2) {
            Headline none = Headline.alone(
                    "ping-pong pinned − unpinned",
                    "",
                    "",
                    "",
                    "",
                    Verdict.notMeasured("one CPU allowed (" + allowed + "): nothing to pin apart"));
            return new Section(TITLE, List.of(none), List.of(), List.of());
        }
        int pingCpu = allowed.first();
        int pongCpu = allowed.next(pingCpu + 1);
        String pins = "pin=ping@" + pingCpu + ";pin=pong@" + pongCpu;
        IntFunction<Path> freeOut = i -> workspace.scratch("pingpong-free-" + i + ".jsonl");
        IntFunction<Path> pinnedOut = i -> workspace.scratch("pingpong-pinned-" + i + ".jsonl");
        Alternation.Runs runs = Alternation.run(
                i -> pingPong(workspace, "threads=ping|pong;out=" + freeOut.apply(i)),
                i -> pingPong(workspace, "threads=ping|pong;" + pins + ";out=" + pinnedOut.apply(i)),
                workspace.runs());
        Figures free = figures(runs.first(), freeOut);
        Figures pinned = figures(runs.second(), pinnedOut);
        Summary freeMedian = Summary.of(free.medians());
        Summary pinnedMedian = Summary.of(pinned.medians());
        Summary freeP99 = Summary.of(free.p99s());
        Summary pinnedP99 = Summary.of(pinned.p99s());
        String pinnedColumn = "pinned " + pingCpu + " / " + pongCpu;
        MarkdownTable table = new MarkdownTable("", "unpinned: median (min–max)", pinnedColumn, "pinned − unpinned")
                .row(
                        "round trip, median of the run, ns",
                        freeMedian.format(0),
                        pinnedMedian.format(0),
                        Summary.difference(pinnedMedian, freeMedian).format(0))
                .row(
                        "round trip, 99th percentile of the run, ns",
                        freeP99.format(0),
                        pinnedP99.format(0),
                        Summary.difference(pinnedP99, freeP99).format(0))
                .row(
                        "cpu-migrations of ping + pong, per run",
                        Summary.of(free.migrations()).format(0),
                        Summary.of(pinned.migrations()).format(0),
                        "");
        return new Section(
                TITLE,
                List.of(
                        headline("ping-pong median round trip, pinned − unpinned", pinnedMedian, freeMedian),
                        headline("ping-pong p99 round trip, pinned − unpinned", pinnedP99, freeP99)),
                List.of(table),
                List.of("`PingPong` with its defaults (1,000,000 timed round trips after 50,000 untimed), "
                        + workspace.runs()
                        + " runs each way, alternating, after one untimed pair. Both ways run the agent with"
                        + " `threads=ping|pong`; pinned adds `" + pins + "`."));
    }

    /** Both ways carry the agent: the unpinned round trip is the figure, and what pinning changes its cost. */
    private static Headline headline(String what, Summary pinned, Summary free) {
        return Headline.alone(
                what,
                free.format(0) + " ns (unpinned, agent)",
                Summary.difference(pinned, free).format(0) + " ns",
                "",
                "",
                Verdict.noTarget());
    }

    private static JavaCommand pingPong(Workspace workspace, String agentOptions) {
        return workspace.app(PingPong.class).withJvmOption(workspace.agentOption(agentOptions));
    }

    private static Figures figures(List<ChildRun> runs, IntFunction<Path> out) throws IOException {
        Figures figures = new Figures();
        for (int i = 0; i < runs.size(); i++) {
            ChildRun run = runs.get(i);
            figures.medians().add(run.resultValue("median-ns"));
            figures.p99s().add(run.resultValue("p99-ns"));
            figures.migrations().add(migrations(out.apply(i + 1)));
        }
        return figures;
    }

    private static double migrations(Path recording) throws IOException {
        double total = 0;
        for (ThreadRecord thread : Recording.read(recording).threads()) {
            String name = thread.report().name();
            if (name.equals("ping") || name.equals("pong")) {
                Long migrations = thread.report().counters().get("cpu-migrations");
                if (migrations == null) {
                    throw new IllegalStateException(recording + ": no cpu-migrations counted for " + name + ": "
                            + thread.report().unsupported());
                }
                total += migrations;
            }
        }
        return total;
    }
}
