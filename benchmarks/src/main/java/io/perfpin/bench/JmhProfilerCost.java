package io.perfpin.bench;

import io.perfpin.PerfpinDirectory;
import io.perfpin.report.JsonReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Benchmark 9: a trivial JMH benchmark's score with {@code -prof perfpin} (its defaults: the worker counted for
 * {@code ipc,sched} over each measurement iteration, the agent in the fork) against the same benchmark without it,
 * in alternating runs of JMH, each with the same class path.
 *
 * <p>Alone, without the rest of {@code ./bench} and without writing {@code docs/benchmarks.md}, from the repository
 * root: {@code java -cp benchmarks/target/benchmarks.jar io.perfpin.bench.JmhProfilerCost [RUNS]} (default 7).
 */
final class JmhProfilerCost {
    /** At most 1% of the throughput lost to perfpin. */
    private static final double TARGET_LOST_PERCENT = 1;

    private static final String ITERATIONS = "-f 1 -wi 2 -w 1s -i 3 -r 1s";
    private static final String SAVED = "Benchmark result is saved to ";

    private JmhProfilerCost() {}

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        Alternation.Runs runs =
                Alternation.run(i -> jmh(workspace, i, false), i -> jmh(workspace, i, true), workspace.runs());
        Summary without =
                Summary.of(runs.first().stream().map(JmhProfilerCost::score).toList());
        Summary with =
                Summary.of(runs.second().stream().map(JmhProfilerCost::score).toList());
        Summary ratio = Summary.ratio(with, without);
        MarkdownTable table = new MarkdownTable("run", "ops/µs: median (min–max)");
        table.row("without a profiler", without.format(1));
        table.row("-prof perfpin", with.format(1));
        // The score is a throughput: what the profiler costs is the share of it lost.
        Summary lost = ratio.below(1).scaled(100);
        table.row("score lost with -prof perfpin", lost.format(1) + "%");
        Headline headline = Headline.alone(
                "trivial JMH benchmark, score lost with -prof perfpin",
                without.format(1) + " ops/µs",
                lost.format(1) + "%",
                "",
                "≤ " + Summary.number(TARGET_LOST_PERCENT, 0) + "%",
                Verdict.atMost(lost, TARGET_LOST_PERCENT, v -> Summary.number(v, 1) + "%", ""));
        return new Section(
                "9. JMH profiler cost",
                List.of(headline),
                List.of(table),
                List.of(
                        "`" + TrivialBenchmark.class.getSimpleName()
                                + "` (one increment per operation, one worker thread), run"
                                + " by JMH's own `org.openjdk.jmh.Main " + ITERATIONS + "` in " + workspace.runs()
                                + " JVMs without and " + workspace.runs()
                                + " with `-prof perfpin`, alternating, after one"
                                + " untimed pair; `jmh/target/perfpin-jmh.jar` is on the class path of both. The"
                                + " score is JMH's, over the measured iterations of the fork.",
                        "With the profiler the fork carries the agent (counting the worker's `sched` events, its"
                                + " sampler every 500 ms), and the profiler opens the worker's counters at the last"
                                + " warm-up iteration and reads them as each measured iteration starts and ends: the"
                                + " worker itself runs no perfpin code."));
    }

    private static JavaCommand jmh(Workspace workspace, int run, boolean profiled) {
        Path result = workspace.scratch("jmh-" + run + (profiled ? "-profiled" : "") + ".json");
        List<String> args =
                new ArrayList<>(List.of(TrivialBenchmark.class.getName(), "-rf", "json", "-rff", result.toString()));
        args.addAll(List.of(ITERATIONS.split(" ")));
        if (profiled) {
            args.addAll(List.of("-prof", "perfpin"));
        }
        // JMH hands this option to its fork, whose agent then leaves its stats file in the scratch directory, not
        // among this user's live JVMs; set on both sides so that they differ only by the profiler.
        return workspace
                .jmh(args.toArray(String[]::new))
                .withJvmOption("-D" + PerfpinDirectory.PROPERTY + "=" + workspace.scratch("perfpin"));
    }

    /** JMH's score, from the result file it names as its last word. */
    private static double score(ChildRun run) {
        String saved = run.stdout().stream()
                .filter(l -> l.startsWith(SAVED))
                .findFirst()
                .orElse(null);
        if (run.exitCode() != 0 || saved == null) {
            throw new IllegalStateException(
                    run.command() + " exited " + run.exitCode() + " without a result file: " + run.stderr());
        }
        Path result = Path.of(saved.substring(SAVED.length()));
        try {
            List<?> benchmarks = (List<?>) JsonReader.parse(Files.readString(result));
            Map<?, ?> primary = (Map<?, ?>) ((Map<?, ?>) benchmarks.get(0)).get("primaryMetric");
            return ((Number) primary.get("score")).doubleValue();
        } catch (IOException e) {
            throw new IllegalStateException("no JMH result in " + result + ": " + e.getMessage(), e);
        }
    }
}
