package io.perfpin.bench;

import io.perfpin.apps.FalseSharing;
import io.perfpin.apps.FlyweightVsObjects;
import io.perfpin.apps.FourKAliasing;
import io.perfpin.apps.MatrixMultiply;
import io.perfpin.apps.MemoryPatterns;
import io.perfpin.apps.PingPong;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * A test-app workload and the figure of its result line that stands for its throughput. The figure is
 * timed by the workload itself, so the JVM's start-up (and the agent's) is not in it. ThreadChurner is not
 * here: its figure is thread start-up, which is benchmark 5.
 *
 * @param higherIsBetter false for a time per operation, where the throughput ratio is without over with
 */
record WorkloadFigure(
        Class<?> main, String figure, boolean higherIsBetter, ToDoubleFunction<Map<String, String>> value) {

    static final List<WorkloadFigure> ALL = List.of(
            key(PingPong.class, "median-ns", false),
            key(FalseSharing.class, "padded-ops-per-s", true),
            key(MemoryPatterns.class, "linear-ns", false),
            key(MatrixMultiply.class, "ikj-gflops", true),
            key(FlyweightVsObjects.class, "flyweight-ns", false),
            // One offset takes a millisecond or two, too short to stand alone: all offsets together do.
            new WorkloadFigure(
                    FourKAliasing.class,
                    "ns-* summed over offsets",
                    false,
                    result -> result.entrySet().stream()
                            .filter(e -> e.getKey().startsWith("ns-"))
                            .mapToDouble(e -> Double.parseDouble(e.getValue()))
                            .sum()));

    private static WorkloadFigure key(Class<?> main, String key, boolean higherIsBetter) {
        return new WorkloadFigure(main, key, higherIsBetter, result -> Double.parseDouble(result.get(key)));
    }

    double of(ChildRun run) {
        return value.applyAsDouble(run.result());
    }

    /** Throughput with the agent over throughput without it, whichever way the figure runs. */
    Summary throughputRatio(Summary with, Summary without) {
        return higherIsBetter ? Summary.ratio(with, without) : Summary.ratio(without, with);
    }
}
