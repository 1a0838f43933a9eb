package io.perfpin.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * About the least a JMH benchmark can do, so that any cost of a profiler shows in its score: one increment of a
 * field per operation, on one worker thread (benchmark 8, {@link JmhProfilerCost}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TrivialBenchmark {
    private long value;

    @Benchmark
    public long increment() {
        return ++value;
    }
}
