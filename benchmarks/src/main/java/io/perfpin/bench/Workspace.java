package io.perfpin.bench;

import io.perfpin.jvm.AgentJar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What the benchmarks run and where they write: the repository's built agent jar and test apps, the C
 * source of the raw read loop, and a private scratch directory (0700) for recordings, stats files and the
 * compiled loop, deleted at the end, since recordings hold thread names and counts of this user's JVMs.
 */
public final class Workspace implements AutoCloseable {
    private static final String AGENT_JAR = "agent/target/perfpin-agent.jar";
    private static final String TEST_APPS = "test-apps/target/classes";
    private static final String ANNOTATIONS = "annotations/target/classes";
    private static final String JMH_PROFILER = "jmh/target/perfpin-jmh.jar";

    private final Path repository;
    private final Path scratch;
    private final int runs;
    private final CPrograms programs;
    /** Null when it could not be built: child JVMs' CPU time is then unknown, {@link #cpuUnknown} says why. */
    private final Path runtimed;

    private final String cpuUnknown;
    private final AsyncProfiler asyncProfiler;

    private Workspace(Path repository, Path scratch, int runs, CPrograms programs) throws InterruptedException {
        this.repository = repository;
        this.scratch = scratch;
        this.runs = runs;
        this.programs = programs;
        Path built = null;
        String why = null;
        try {
            built = programs.get("runtimed");
        } catch (IOException e) {
            why = e.getMessage();
        }
        this.runtimed = built;
        this.cpuUnknown = why;
        this.asyncProfiler = AsyncProfiler.extract(scratch);
    }

    /**
     * @param runs how many measured runs each configuration of a child JVM gets
     * @throws IOException when the repository has not been built, saying how to build it
     */
    public static Workspace open(Path repository, int runs) throws IOException, InterruptedException {
        Path root = repository.toAbsolutePath().normalize();
        for (Path built : new Path[] {
            root.resolve(AGENT_JAR), root.resolve(TEST_APPS), root.resolve(ANNOTATIONS), root.resolve(JMH_PROFILER)
        }) {
            if (!Files.exists(built)) {
                throw new IOException(
                        built + " is missing: build first with ./mvnw -B -q -DskipTests package" + " (./bench does)");
            }
        }
        Path scratch = Files.createTempDirectory(
                "perfpin-bench-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        return new Workspace(root, scratch, runs, new CPrograms(root.resolve("benchmarks/src/main/c"), scratch));
    }

    public Path repository() {
        return repository;
    }

    public int runs() {
        return runs;
    }

    public Path agentJar() {
        return repository.resolve(AGENT_JAR);
    }

    /** The peer measured beside the agent. */
    AsyncProfiler asyncProfiler() {
        return asyncProfiler;
    }

    /** Why child JVMs' CPU time is not measured; null when it is. */
    String cpuUnknown() {
        return cpuUnknown;
    }

    /** The C programs of {@code benchmarks/src/main/c}, built on demand into the scratch directory. */
    CPrograms programs() {
        return programs;
    }

    /** A file of this name in the private scratch directory. */
    public Path scratch(String name) {
        return scratch.resolve(name);
    }

    /**
     * A child JVM that runs one of the test apps, as the README runs them, on this JVM's java; under runtimed, for its
     * CPU time, when that could be built.
     */
    public JavaCommand app(Class<?> mainClass, String... args) {
        return app(Path.of(System.getProperty("java.home"), "bin", "java"), mainClass, args);
    }

    /** As {@link #app(Class, String...)}, on another java (one with virtual threads). */
    public JavaCommand app(Path java, Class<?> mainClass, String... args) {
        String classpath = repository.resolve(TEST_APPS) + ":" + repository.resolve(ANNOTATIONS);
        return JavaCommand.of(java, runtimed, classpath, scratch, mainClass.getName(), args);
    }

    /**
     * JMH's own main in a child JVM, as a user runs it, with perfpin's profiler jar and these benchmarks (the jar
     * this JVM runs from) on its class path; its forks get the same.
     */
    public JavaCommand jmh(String... args) {
        String benchmarks = Path.of(Workspace.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .getPath())
                .toString();
        return JavaCommand.of(
                Path.of(System.getProperty("java.home"), "bin", "java"),
                runtimed,
                repository.resolve(JMH_PROFILER) + ":" + benchmarks,
                scratch,
                "org.openjdk.jmh.Main",
                args);
    }

    /** The JVM option that loads the agent: {@code -javaagent:JAR} or {@code -javaagent:JAR=OPTIONS}. */
    public String agentOption(String options) {
        return "-javaagent:" + agentJar() + (options == null ? "" : "=" + options);
    }

    /** The agent's native way in, which the build leaves beside its jar; absent where it had no C compiler. */
    public Path agentLibrary() {
        return agentJar().resolveSibling(AgentJar.LIBRARY);
    }

    @Override
    public void close() throws IOException {
        try (Stream<Path> files = Files.walk(scratch)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
