package io.perfpin.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Runs every benchmark once, in order, and writes {@code docs/benchmarks.md}.
 *
 * <p>Usage: {@code java -jar benchmarks/target/benchmarks.jar [--repo DIR] [--output FILE] [--runs N]
 * [--only N,...]}: the repository whose built agent and test apps are measured (default: the current directory), the
 * report (default: {@code DIR/docs/benchmarks.md}), the measured runs per configuration of a child JVM (default 7),
 * and which benchmarks to run (default: all; a partial run writes a report of those alone).
 */
public final class Bench {
    private static final int USAGE = 2;
    private static final String USAGE_LINE = "usage: java -jar benchmarks/target/benchmarks.jar [--repo DIR]"
            + " [--output FILE] [--runs N] [--only N,...]   (./bench passes --repo)";
    private static final int BENCHMARKS = 11;

    private Bench() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        Path repository = Path.of(".");
        Path output = null;
        int runs = 7;
        Set<Integer> only = new TreeSet<>();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--repo" -> repository = Path.of(required(args[i], value));
                case "--output" -> output = Path.of(required(args[i], value));
                case "--runs" -> runs = positive(args[i], required(args[i], value));
                case "--only" -> only = benchmarks(args[i], required(args[i], value));
                case "--help" -> {
                    System.out.println(USAGE_LINE);
                    return;
                }
                default -> usage("unknown argument '" + args[i] + "'");
            }
            i++;
        }
        Path report = output != null ? output : repository.resolve("docs/benchmarks.md");
        Instant start = Instant.now();
        RunConditions conditions = RunConditions.begin();
        List<Section> sections = new ArrayList<>();
        HardwarePmu pmu = HardwarePmu.probe();
        List<String> settings;
        try (Workspace workspace = Workspace.open(repository, runs)) {
            settings = settings(workspace);
            Steps steps = new Steps(only, sections);
            steps.run(1, "counter read cost (JMH, about 50 s)", () -> CounterReadCost.run(workspace, pmu));
            steps.run(
                    2,
                    "agent overhead on " + WorkloadFigure.ALL.size() + " workloads",
                    () -> AgentOverhead.run(workspace));
            steps.run(3, "JVM start-up, beside async-profiler", () -> StartupTime.run(workspace));
            steps.run(4, "attach to JVMs with 10, 1,000 and 5,000 parked threads", () -> AttachLatency.run(workspace));
            steps.run(
                    5, "thread churn, beside async-profiler and the kernel's floor", () -> ThreadChurn.run(workspace));
            steps.run(6, "sampler with 10, 1,000 and 10,000 threads, in process", () -> SamplerCost.run(workspace));
            steps.run(7, "pinned versus unpinned ping-pong", () -> PinnedPingPong.run(workspace));
            steps.run(8, "perfpin stat against perf stat", () -> StatAgainstPerf.run(workspace));
            steps.run(9, "JMH profiler cost on a trivial benchmark", () -> JmhProfilerCost.run(workspace));
            steps.run(
                    10,
                    "virtual threads: a mount and unmount pair, with and without virtual=",
                    () -> VirtualMountCost.run(workspace));
            steps.run(
                    11,
                    "a pool's start, " + PoolStartLatency.THREADS + " threads that stay, beside async-profiler",
                    () -> PoolStartLatency.run(workspace));
        }
        Duration took = Duration.between(start, Instant.now());
        Map<String, String> machine = new LinkedHashMap<>(Machine.describe(pmu));
        machine.putAll(conditions.rows());
        String text = BenchReport.render(machine, settings, sections, Instant.now(), took);
        BenchReport.write(report, text);
        System.out.print(text);
        System.err.println("[bench] wrote " + report + " in " + took.toSeconds() + " s");
    }

    private static List<String> settings(Workspace workspace) {
        return List.of(
                "Short settings, so that the whole run takes minutes on two cores: " + CounterReadCost.settings() + ".",
                "Child JVMs (benchmarks 2, 3, 5, 7, 8, 9, 10, 11): " + workspace.runs()
                        + " measured runs per configuration"
                        + " (start-up: " + StartupTime.runs(workspace) + "), the configurations alternating"
                        + " (AB BA ..., ABC CBA ...) after one untimed round, on the JDK that runs the benchmarks"
                        + " (10: one with virtual threads, that JDK or JDK25_HOME's).",
                "Every figure is the median of its runs with their spread, minimum to maximum, in parentheses. A"
                        + " ratio or difference is that of the medians, spread from the least to the greatest value"
                        + " any two runs could give. A median that misses its target while the spread still reaches"
                        + " it is said to be within noise; one whose spread misses too is not.");
    }

    /** One benchmark. */
    private interface Step {
        Section run() throws IOException, InterruptedException;
    }

    /**
     * Runs the benchmarks asked for, each announced on stderr since some take a minute, into {@code sections}. One
     * that fails is a section that says so, and the others still run: a report is never lost to one benchmark.
     */
    private record Steps(Set<Integer> only, List<Section> sections) {
        void run(int number, String what, Step benchmark) throws InterruptedException {
            if (only.isEmpty() || only.contains(number)) {
                System.err.println("[bench] " + number + "/" + BENCHMARKS + " " + what);
                try {
                    sections.add(benchmark.run());
                } catch (IOException | RuntimeException e) {
                    System.err.println("[bench] " + number + " failed: " + e);
                    sections.add(new Section(
                            number + ". " + what,
                            List.of(),
                            List.of(),
                            List.of("Not measured: the" + " benchmark failed: " + e)));
                }
            }
        }
    }

    private static Set<Integer> benchmarks(String option, String value) {
        Set<Integer> numbers = new TreeSet<>();
        for (String number : value.split(",")) {
            int n = positive(option, number);
            if (n > BENCHMARKS) {
                usage(option + " names benchmarks 1 to " + BENCHMARKS + ", not '" + number + "'");
            }
            numbers.add(n);
        }
        return numbers;
    }

    private static String required(String option, String value) {
        if (value == null) {
            usage(option + " needs a value");
        }
        return value;
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        usage(option + " needs a positive whole number, not '" + value + "'");
        return 0;
    }

    private static void usage(String problem) {
        System.err.println("bench: " + problem + "; " + USAGE_LINE);
        System.exit(USAGE);
    }
}
