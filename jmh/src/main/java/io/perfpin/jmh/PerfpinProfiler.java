package io.perfpin.jmh;

import java.io.File;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.ExternalProfiler;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.runner.IterationType;

/**
 * {@code -prof perfpin}: counts JMH's worker threads, each by perf_event_open as perfpin counts a Java thread, over
 * each measurement iteration, and reports the counts per operation as JMH secondary results, in JMH's text output
 * and its result files. Options: {@code -prof perfpin:help}.
 *
 * <p>As an {@link ExternalProfiler} it runs in the JVM that runs JMH: it adds the perfpin agent to the forked JVM
 * ({@link ForkAgent}). As an {@link InternalProfiler} it runs in the JVM that runs the benchmark (the fork, or JMH's
 * own with {@code -f 0}): from the last warm-up iteration it pins the workers and opens their counters
 * ({@link Measurement}), saying which events it cannot count there, reads them as each measurement iteration starts
 * and ends, and after the last one gives the workers their CPUs back.
 *
 * <p>It never fails a benchmark: whatever goes wrong is said once, and the benchmark runs on without perfpin's
 * results.
 */
public class PerfpinProfiler implements ExternalProfiler, InternalProfiler {
    private final ProfilerOptions options;
    private Measurement measurement;
    private boolean failed;
    private int warmups;
    private int measured;

    /** For JMH's discovery ({@code -lprof}). */
    public PerfpinProfiler() throws ProfilerException {
        this("");
    }

    /** @param initLine what follows {@code -prof perfpin:} */
    public PerfpinProfiler(String initLine) throws ProfilerException {
        this.options = ProfilerOptions.parse(initLine);
    }

    @Override
    public String getDescription() {
        return "Counts of the benchmark's own worker threads (task-clock, context switches, page faults, PMU events)"
                + " per operation, measurement iterations only; pins them (perfpin, -prof perfpin:help)";
    }

    @Override
    public Collection<String> addJVMInvokeOptions(BenchmarkParams params) {
        return List.of();
    }

    @Override
    public Collection<String> addJVMOptions(BenchmarkParams params) {
        return ForkAgent.options(options, params.getJvm(), params.getJvmArgs());
    }

    /**
     * Nothing: which events are not counted is said by the JVM that counts them ({@link CountedThreads}), whose
     * JDK, backend and PMU may differ from this one's.
     */
    @Override
    public void beforeTrial(BenchmarkParams params) {}

    @Override
    public Collection<? extends Result> afterTrial(BenchmarkResult result, long pid, File stdOut, File stdErr) {
        return List.of();
    }

    @Override
    public boolean allowPrintOut() {
        return true;
    }

    @Override
    public boolean allowPrintErr() {
        return true;
    }

    /** JMH has begun the iteration's line ({@code Iteration   1: }) and ends it with the result after this. */
    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        Notes.midLine(false, () -> prepare(iteration));
    }

    private void prepare(IterationParams iteration) {
        boolean measuring = iteration.getType() == IterationType.MEASUREMENT;
        if (failed || !measuring && ++warmups < iteration.getCount()) {
            return;
        }
        try {
            if (measurement == null) {
                measurement = Measurement.open(options);
            }
            measurement.prepare();
            if (measuring) {
                measurement.start();
            }
        } catch (Exception | LinkageError e) {
            fail("cannot count the benchmark's threads, so no result of perfpin's is reported", e);
        }
    }

    /** As {@link #beforeIteration}, on the iteration's line, which JMH ends with the result after this. */
    @Override
    public Collection<? extends Result> afterIteration(
            BenchmarkParams benchmark, IterationParams iteration, IterationResult result) {
        List<PerOpResult> results = new ArrayList<>();
        Notes.midLine(false, () -> results.addAll(results(benchmark, iteration, result)));
        return results;
    }

    private List<PerOpResult> results(BenchmarkParams benchmark, IterationParams iteration, IterationResult result) {
        if (failed || iteration.getType() != IterationType.MEASUREMENT || measurement == null) {
            return List.of();
        }
        try {
            return measurement.stop(result.getMetadata().getAllOps(), benchmark.getBenchmark() + "-jmh-");
        } catch (RuntimeException | LinkageError e) {
            fail("cannot read the benchmark's threads' counters, so no result of perfpin's is reported", e);
            return List.of();
        } finally {
            if (++measured == iteration.getCount() && measurement != null) {
                measurement.close();
                measurement = null;
            }
        }
    }

    private void fail(String what, Throwable e) {
        failed = true;
        Notes.failed(what, e);
        if (measurement != null) {
            measurement.close();
            measurement = null;
        }
    }
}
