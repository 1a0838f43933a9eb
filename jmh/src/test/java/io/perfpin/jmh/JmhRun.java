package io.perfpin.jmh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * JMH run as its users run it, {@code java -cp ... org.openjdk.jmh.Main ARGS}, in a JVM of its own with
 * {@code perfpin-jmh.jar} (the jar this module packages, not its classes) beside JMH 1.37, its published samples
 * and this module's test benchmarks on the class path. Its output and exit code, within a deadline.
 */
final class JmhRun {
    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    private static final long DEADLINE_SECONDS = 120;

    final int code;
    final String out;

    private JmhRun(int code, String out) {
        this.code = code;
        this.out = out;
    }

    /** {@code jvmOptions} go to the JVM that runs JMH (and, copied by JMH, to its forks). */
    static JmhRun of(List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(JAVA));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath(), "org.openjdk.jmh.Main"));
        command.addAll(Arrays.asList(args));
        Path output = Files.createTempFile("jmh-run", ".txt");
        try {
            Process jmh = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!jmh.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                jmh.descendants().forEach(ProcessHandle::destroyForcibly);
                jmh.destroyForcibly();
                jmh.waitFor();
                throw new AssertionError(
                        "JMH still ran after " + DEADLINE_SECONDS + " s:\n" + Files.readString(output));
            }
            return new JmhRun(jmh.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
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
