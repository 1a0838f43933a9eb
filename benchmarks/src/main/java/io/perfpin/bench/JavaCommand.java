package io.perfpin.bench;

import io.perfpin.PerfpinDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One child JVM to run: java, JVM options, class path, main class and its arguments. Its output goes to
 * files in the scratch directory rather than through pipes, so that no reader thread in this JVM competes
 * with the child for the two CPUs while it is being timed. It runs under {@code runtimed} when that program could be
 * built, which reports the CPU time the child used on all its threads once it exited.
 */
public final class JavaCommand {
    /** Far beyond any run here: a child that takes this long has hung. */
    private static final long TIMEOUT_SECONDS = 120;

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final Path java;
    /** Null when the C program could not be built: the CPU time is then unknown. */
    private final Path runtimed;

    private final String classpath;
    private final Path scratch;
    private final List<String> jvmOptions;
    private final String mainClass;
    private final List<String> args;

    private JavaCommand(
            Path java,
            Path runtimed,
            String classpath,
            Path scratch,
            List<String> jvmOptions,
            String mainClass,
            List<String> args) {
        this.java = java;
        this.runtimed = runtimed;
        this.classpath = classpath;
        this.scratch = scratch;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.mainClass = mainClass;
        this.args = List.copyOf(args);
    }

    static JavaCommand of(Path java, Path runtimed, String classpath, Path scratch, String mainClass, String... args) {
        return new JavaCommand(java, runtimed, classpath, scratch, List.of(), mainClass, List.of(args));
    }

    public JavaCommand withJvmOption(String option) {
        List<String> options = new ArrayList<>(jvmOptions);
        options.add(option);
        return new JavaCommand(java, runtimed, classpath, scratch, options, mainClass, args);
    }

    public List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /** Runs it to the end, timed from just before the process starts until it has exited. */
    public ChildRun run() throws IOException, InterruptedException {
        int number = RUNS.incrementAndGet();
        Path out = scratch.resolve("child-" + number + ".out");
        Path err = scratch.resolve("child-" + number + ".err");
        Path cost = scratch.resolve("child-" + number + ".cost");
        List<String> command = new ArrayList<>();
        if (runtimed != null) {
            command.add(runtimed.toString());
            command.add(cost.toString());
        }
        command.addAll(command());
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        long start = System.nanoTime();
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new IOException("timed out after " + TIMEOUT_SECONDS + " s: " + String.join(" ", command()));
        }
        long wallNanos = System.nanoTime() - start;
        try {
            return new ChildRun(
                    String.join(" ", command()),
                    process.exitValue(),
                    Files.readAllLines(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8),
                    start,
                    wallNanos,
                    cpuNanos(cost));
        } finally {
            Files.delete(out);
            Files.delete(err);
            Files.deleteIfExists(cost);
            forgetStatsFile(process.pid());
        }
    }

    /** User plus system time as runtimed reported it; -1 when it did not run or said nothing. */
    static long cpuNanos(Path report) throws IOException {
        if (!Files.exists(report)) {
            return -1;
        }
        String[] words =
                Files.readString(report, StandardCharsets.US_ASCII).trim().split(" ");
        long micros = 0;
        for (int i = 0; i + 1 < words.length; i += 2) {
            if (words[i].equals("user-us") || words[i].equals("system-us")) {
                micros += Long.parseLong(words[i + 1]);
            }
        }
        return micros * 1000;
    }

    /**
     * An agent left to its default stats file leaves it behind in this user's perfpin directory, where
     * {@code perfpin list} would show dozens of finished benchmark JVMs: it goes once its JVM has exited.
     */
    private void forgetStatsFile(long pid) throws IOException {
        boolean defaultStats = jvmOptions.stream()
                .anyMatch(o -> (o.startsWith("-javaagent:") || o.startsWith("-agentpath:")) && !o.contains("stats="));
        if (defaultStats) {
            Files.deleteIfExists(PerfpinDirectory.statsFile(pid));
        }
    }
}
