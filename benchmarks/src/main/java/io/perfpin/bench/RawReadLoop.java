package io.perfpin.bench;

import java.io.IOException;
import java.util.List;

/**
 * The floor of a counter read: {@code benchmarks/src/main/c/readloop.c} reading the same kernel group as
 * {@link CounterReadBenchmark} with nothing between it and read(2), in a process of more than one thread, as a JVM is
 * (readloop.c says what that changes).
 */
final class RawReadLoop {
    private RawReadLoop() {}

    /**
     * Nanoseconds per read: one value per timed iteration.
     *
     * @throws IOException when there is no C compiler, or the kernel refuses the group: the reason
     */
    static Summary measure(Workspace workspace, int iterations, int secondsEach, int warmupSeconds)
            throws IOException, InterruptedException {
        String binary = workspace.programs().get("readloop").toString();
        List<String> lines = CPrograms.run(
                List.of(
                        binary,
                        Integer.toString(iterations),
                        Integer.toString(secondsEach),
                        Integer.toString(warmupSeconds)),
                "readloop");
        double[] nanos = lines.stream()
                .filter(l -> l.startsWith("ns-per-read "))
                .mapToDouble(l -> Double.parseDouble(l.substring("ns-per-read ".length())))
                .toArray();
        if (nanos.length == 0) {
            throw new IOException("readloop printed no timing: " + lines);
        }
        return Summary.of(nanos);
    }
}
