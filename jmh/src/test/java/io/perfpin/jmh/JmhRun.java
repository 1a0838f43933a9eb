package io.perfpin.jmh;

import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * JMH run as its users run it, {@code java -cp ... org.openjdk.jmh.Main ARGS}, in a JVM of its own with
 * {@code perfpin-jmh.jar} (the jar this module packages, not its classes) beside JMH 1.37, its published samples
 * and this module's test benchmarks on the class path. Its output and exit code, within a deadline.
 */
final class JmhRun {
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    final int code;
    final String out;

    private JmhRun(int code, String out) {
        this.code = code;
        this.out = out;
    }

    /** {@code jvmOptions} go to the JVM that runs JMH (and, copied by JMH, to its forks). */
    static JmhRun of(List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        // its output to a file: JMH's forks would hold a pipe, and the harness kills them with JMH past the deadline
        Path output = Files.createTempFile("jmh-run", ".txt");
        try (TestJvm jmh = TestJvm.main("org.openjdk.jmh.Main")
                // JMH's host-wide lock (/tmp/jmh.lock) keeps two benchmarks from timing each other: these runs assert
                // what perfpin counts, not a time, and another JMH on the host (a second build) must not fail them
                .jvmOptions("-Djmh.ignoreLock=true")
                .jvmOptions(jvmOptions)
                .classPath(classPath())
                .args(args)
                .mergeStderr()
                .outputTo(output)
                .start()) {
            int code = jmh.exitWithin(DEADLINE);
            return new JmhRun(code, jmh.output());
        } finally {
            Files.delete(output);
        }
    }

    static JmhRun of(String... args) throws IOException, InterruptedException {
        return of(List.of(), args);
    }

    private static String classPath() {
        String jar = System.getProperty("perfpin.jmh.jar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("no perfpin-jmh.jar at -Dperfpin.jmh.jar=" + jar + ": run after package");
        }
        List<String> entries = new ArrayList<>(List.of(jar));
        entries.addAll(Arrays.stream(System.getProperty("java.class.path").split(":"))
                .filter(e -> e.contains("jmh-core")
                        || e.contains("jmh-samples")
                        || e.contains("jopt-simple")
                        || e.contains("commons-math3")
                        || e.endsWith("jmh/target/test-classes")
                        || e.contains("test-apps"))
                .collect(Collectors.toList()));
        return String.join(":", entries);
    }
}
