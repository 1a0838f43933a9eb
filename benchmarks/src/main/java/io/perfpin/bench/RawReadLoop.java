package io.perfpin.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The floor of a counter read: {@code benchmarks/src/main/c/readloop.c}, compiled here with the system's C
 * compiler ({@code $CC}, else {@code cc}) at {@code -O2}, reading the same kernel group as
 * {@link CounterReadBenchmark} with nothing between it and read(2).
 */
final class RawReadLoop {
    private RawReadLoop() {
    }

    /**
     * Nanoseconds per read: one value per timed iteration.
     *
     * @throws IOException when there is no C compiler, or the kernel refuses the group: the reason
     */
    static Summary measure(Workspace workspace, int iterations, int secondsEach, int warmupSeconds)
            throws IOException, InterruptedException {
        String cc = System.getenv().getOrDefault("CC", "cc");
        String binary = workspace.scratch("readloop").toString();
        run(List.of(cc, "-O2", "-Wall", "-o", binary, workspace.readLoopSource().toString()),
                "compiling readloop.c with " + cc);
        List<String> lines = run(List.of(binary, Integer.toString(iterations), Integer.toString(secondsEach),
                Integer.toString(warmupSeconds)), "readloop");
        double[] nanos = lines.stream().filter(l -> l.startsWith("ns-per-read "))
                .mapToDouble(l -> Double.parseDouble(l.substring("ns-per-read ".length()))).toArray();
        if (nanos.length == 0) {
            throw new IOException("readloop printed no timing: " + lines);
        }
        return Summary.of(nanos);
    }

    private static List<String> run(List<String> command, String what) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException(what + " failed: " + e.getMessage() + " (install gcc, or set CC)", e);
        }
        List<String> lines = new ArrayList<>(new String(process.getInputStream().readAllBytes(),
                StandardCharsets.UTF_8).lines().toList());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(what + " failed: " + String.join(" ", lines).strip());
        }
        return lines;
    }
}
