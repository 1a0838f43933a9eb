package io.perfpin.bench;

import io.perfpin.apps.ResultLine;
import java.util.List;
import java.util.Map;

/**
 * How a child JVM ended: exit code, its output, how long it took from start to exit, and the CPU time it used on all
 * its threads ({@code cpuNanos}, -1 when unknown). {@code startNanos} is this JVM's {@code System.nanoTime()} just
 * before the child started.
 */
public record ChildRun(
        String command,
        int exitCode,
        List<String> stdout,
        String stderr,
        long startNanos,
        long wallNanos,
        long cpuNanos) {

    /**
     * The workload's {@code result ...} line, parsed ({@link ResultLine#parse}).
     *
     * @throws IllegalStateException when the child failed or printed none, with what it said
     */
    public Map<String, String> result() {
        if (exitCode == 0) {
            for (int i = stdout.size() - 1; i >= 0; i--) {
                if (stdout.get(i).startsWith("result ")) {
                    return ResultLine.parse(stdout.get(i));
                }
            }
        }
        throw new IllegalStateException(
                command + " exited " + exitCode + " without a result line; stderr: " + stderr.strip());
    }

    /** A value of the result line as a number. */
    public double resultValue(String key) {
        return Double.parseDouble(resultText(key));
    }

    private String resultText(String key) {
        String value = result().get(key);
        if (value == null) {
            throw new IllegalStateException("no '" + key + "' in the result of " + command + ": " + result());
        }
        return value;
    }

    /**
     * How long after its start the child reached {@code main()}, from the {@code main-nanos} of its result line
     * ({@link io.perfpin.apps.MainReached}): on Linux both JVMs' {@code System.nanoTime()} read {@code CLOCK_MONOTONIC}.
     */
    public double mainMillis() {
        return (Long.parseLong(resultText("main-nanos")) - startNanos) / 1e6;
    }

    public double wallMillis() {
        return wallNanos / 1e6;
    }

    /** @throws IllegalStateException when the CPU time is unknown (runtimed.c could not be built) */
    public double cpuMillis() {
        if (cpuNanos < 0) {
            throw new IllegalStateException("the CPU time of " + command + " is unknown: runtimed.c was not built");
        }
        return cpuNanos / 1e6;
    }
}
