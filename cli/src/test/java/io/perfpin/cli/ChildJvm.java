package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.jvm.AgentJar;
import io.perfpin.stats.StatsFileBeingCreatedException;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The testkit's child JVM as the CLI's tests start it: from this test's class path less the agent's classes, its
 * output and error stream read as one, in the order a user sees them; it runs while its standard input is open.
 */
final class ChildJvm extends TestJvm {
    private ChildJvm(TestJvm.Builder child) throws IOException {
        super(child.mergeStderr());
    }

    static ChildJvm start(String mainClass, String... args) throws IOException {
        return startWith(List.of(), mainClass, args);
    }

    /** A JVM started with the agent that the CLI carries, with these agent options. */
    static ChildJvm withAgent(String agentOptions, String mainClass, String... args) throws IOException {
        return startWith(List.of("-javaagent:" + AgentJar.forThisUser() + "=" + agentOptions), mainClass, args);
    }

    /** As {@link #start}, with these options for the JVM. */
    static ChildJvm startWith(List<String> jvmOptions, String mainClass, String... args) throws IOException {
        return startUnder(List.of(), jvmOptions, mainClass, args);
    }

    /**
     * As {@link #startWith}, started by {@code launcher}, a command that execs the java command it is given
     * ({@code taskset -c 1}, a shell that first moves itself into a cgroup), so that the JVM has its pid.
     */
    static ChildJvm startUnder(List<String> launcher, List<String> jvmOptions, String mainClass, String... args)
            throws IOException {
        return startUnder(
                launcher,
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                jvmOptions,
                mainClass,
                args);
    }

    /** As {@link #startUnder(List, List, String, String...)}, from {@code classPath}. */
    static ChildJvm startUnder(
            List<String> launcher, String classPath, List<String> jvmOptions, String mainClass, String... args)
            throws IOException {
        return new ChildJvm(TestJvm.main(mainClass)
                .launcher(launcher)
                .classPath(classPath)
                .jvmOptions(jvmOptions)
                .args(args));
    }

    /** As {@link #start}, on the JVM of {@code java} (the second JDK's, for virtual threads). */
    static ChildJvm startOn(String java, String mainClass, String... args) throws IOException {
        return new ChildJvm(TestJvm.main(mainClass)
                .java(java)
                .classPath(ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")))
                .args(args));
    }

    /** A program that embeds a JVM (or none), talked to in the same way. */
    static ChildJvm startCommand(List<String> command) throws IOException {
        return new ChildJvm(TestJvm.program(command));
    }

    /**
     * Until the agent has published {@code thread} in its stats file: a thread that the C library enrolled as it
     * started is published by the sampler's next tick, after the application said it was ready.
     */
    static void awaitInStatsFile(Path stats, String thread) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            if (Files.exists(stats)) {
                try (StatsFileReader reader = StatsFileReader.open(stats)) {
                    if (reader.snapshot().threads().stream()
                            .anyMatch(t -> t.name().equals(thread))) {
                        return;
                    }
                } catch (StatsFileBeingCreatedException notYet) {
                    // the sampler makes it as this looks: looked at again below
                }
            }
            assertTrue(System.nanoTime() < deadline, thread + " in " + stats + " within a minute");
            Thread.sleep(20);
        }
    }

    /** Ends it (its input closed) and returns all it printed after what was awaited. */
    List<String> endAndReadRest() {
        close();
        return rest();
    }
}
