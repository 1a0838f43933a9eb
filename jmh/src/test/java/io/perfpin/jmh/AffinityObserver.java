package io.perfpin.jmh;

import io.perfpin.jvm.JavaThreads;
import io.perfpin.nativeio.Backends;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.runner.IterationType;

/**
 * A test's profiler that reads, from /proc, the CPUs each JMH worker may run on, around every iteration, and prints
 * them: {@code affinity WARMUP 2 start worker-1 0-1}. JMH calls profilers in the order they are given as iterations
 * start and in the reverse order as they end, so given before perfpin's it sees each iteration start before perfpin
 * acts, and end after perfpin has.
 */
public final class AffinityObserver implements InternalProfiler {
    private int warmups;
    private int measurements;

    @Override
    public String getDescription() {
        return "prints the JMH workers' Cpus_allowed_list around each iteration";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        print(benchmark, iteration, iteration.getType() == IterationType.WARMUP ? ++warmups : ++measurements, "start");
    }

    @Override
    public Collection<? extends Result> afterIteration(
            BenchmarkParams benchmark, IterationParams iteration, IterationResult result) {
        print(benchmark, iteration, iteration.getType() == IterationType.WARMUP ? warmups : measurements, "end");
        return List.of();
    }

    private static void print(BenchmarkParams benchmark, IterationParams iteration, int number, String when) {
        String prefix = benchmark.getBenchmark() + "-jmh-";
        List<Thread> workers = new ArrayList<>();
        Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix))
                .forEach(workers::add);
        try {
            Map<String, String> cpus = new TreeMap<>();
            for (Map.Entry<Thread, Integer> worker :
                    JavaThreads.tids(Backends.syscalls(), workers).entrySet()) {
                String status = Files.readString(Path.of("/proc/self/task/" + worker.getValue() + "/status"));
                cpus.put(
                        worker.getKey().getName().substring(prefix.length()),
                        status.replaceAll("(?s).*\nCpus_allowed_list:\\s*(\\S+)\n.*", "$1"));
            }
            cpus.forEach((name, list) -> System.out.println(
                    "affinity " + iteration.getType() + " " + number + " " + when + " " + name + " " + list));
        } catch (Exception e) {
            System.out.println("affinity unreadable: " + e);
        }
    }
}
