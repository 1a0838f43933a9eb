package io.perfpin.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The benchmarks' C programs ({@code benchmarks/src/main/c}), compiled into the scratch directory with the system's C
 * compiler ({@code $CC}, else {@code cc}) at {@code -O2}, each once per run, and run to their end.
 */
final class CPrograms {
    /** Far beyond any program here: one that takes this long has hung. */
    private static final long TIMEOUT_SECONDS = 300;

    private final Path sources;
    private final Path scratch;
    private final Map<String, Path> compiled = new HashMap<>();
    private final Map<String, String> failed = new HashMap<>();

    CPrograms(Path sources, Path scratch) {
        this.sources = sources;
        this.scratch = scratch;
    }

    /**
     * The program built from {@code NAME.c}.
     *
     * @throws IOException when there is no C compiler, or it fails: the reason, said again for each later ask
     */
    synchronized Path get(String name) throws IOException, InterruptedException {
        Path binary = compiled.get(name);
        if (binary != null) {
            return binary;
        }
        if (failed.containsKey(name)) {
            throw new IOException(failed.get(name));
        }
        String cc = System.getenv().getOrDefault("CC", "cc");
        binary = scratch.resolve(name);
        try {
            run(
                    List.of(
                            cc,
                            "-O2",
                            "-Wall",
                            "-pthread",
                            "-o",
                            binary.toString(),
                            sources.resolve(name + ".c").toString()),
                    "compiling " + name + ".c with " + cc);
        } catch (IOException e) {
            failed.put(name, e.getMessage());
            throw e;
        }
        compiled.put(name, binary);
        return binary;
    }

    /**
     * Runs {@code command} to its end and returns what it printed, stdout and stderr together.
     *
     * @throws IOException when it cannot start, fails or hangs: {@code what} and what it said
     */
    static List<String> run(List<String> command, String what) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException(what + " failed: " + e.getMessage() + " (install gcc, or set CC)", e);
        }
        List<String> lines = new ArrayList<>(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .lines()
                .toList());
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(what + " failed: " + String.join(" ", lines).strip());
        }
        return lines;
    }
}
