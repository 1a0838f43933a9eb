package io.perfpin.jmh;

import io.perfpin.jvm.AgentJar;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * The perfpin agent for JMH's forked JVM, so that {@code perfpin top} and {@code perfpin list} show its threads
 * live. Left out when the fork gets an agent already: JMH copies its own JVM's arguments to the fork, so under
 * {@code perfpin run} the fork has run's agent and options (and its recording), and a second agent would be
 * refused; likewise for an agent in {@code JAVA_TOOL_OPTIONS} or {@code JDK_JAVA_OPTIONS}, which the fork inherits.
 *
 * <p>The agent counts the software events only ({@code sched}): the same hardware events counted twice on the
 * same threads would take the PMU's counters twice over and multiplex the profiler's own.
 */
final class ForkAgent {
    private static final String PERFPIN_PREMAIN = "io.perfpin.agent.PerfpinAgent";

    private ForkAgent() {}

    /**
     * The fork's options to add: the agent's, or none. The agent starts by its library as in {@code perfpin run}
     * ({@link AgentJar#startOption}), judged by the fork's arguments and those it inherits, and only where the fork
     * runs this JVM's java: this JVM loaded the library to know that it can be loaded, which says nothing of another
     * JDK's (another C library, another processor), where -javaagent still works.
     */
    static List<String> options(ProfilerOptions options, String forkJvm, Collection<String> forkJvmArguments) {
        List<String> words = new ArrayList<>(forkJvmArguments);
        inheritedOptions().forEach(words::add);
        if (!options.agent() || words.stream().anyMatch(ForkAgent::isPerfpin)) {
            return List.of();
        }
        try {
            String threads =
                    options.threads() == null ? ".*" : options.threads().toString();
            String agentOptions = "threads=" + threads + ";events=sched;quiet";
            return List.of(
                    isThisJava(forkJvm)
                            ? AgentJar.startOption(agentOptions, words)
                            : AgentJar.javaagentOption(agentOptions));
        } catch (IOException | RuntimeException e) {
            Notes.say("the forked JVM runs without the agent, so no live view shows it: " + e.getMessage());
            return List.of();
        }
    }

    /** Whether {@code java} is the launcher of the JDK this JVM runs, links resolved. */
    static boolean isThisJava(String java) {
        try {
            return Path.of(java)
                    .toRealPath()
                    .equals(Path.of(System.getProperty("java.home"), "bin", "java")
                            .toRealPath());
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static Stream<String> inheritedOptions() {
        List<String> words = new ArrayList<>();
        for (String variable : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")) {
            String value = System.getenv(variable);
            if (value != null) {
                words.addAll(Arrays.asList(value.trim().split("\\s+")));
            }
        }
        return words.stream();
    }

    /**
     * Whether a JVM option loads perfpin's agent: a {@code -javaagent:} whose jar's premain is perfpin's, or an
     * {@code -agentpath:} to the library that starts it ({@code libperfpin-agent.so}).
     */
    static boolean isPerfpin(String option) {
        if (option.startsWith("-agentpath:")) {
            String library = option.substring("-agentpath:".length()).split("=", 2)[0];
            return library.equals(AgentJar.LIBRARY) || library.endsWith("/" + AgentJar.LIBRARY);
        }
        if (!option.startsWith("-javaagent:")) {
            return false;
        }
        String jar = option.substring("-javaagent:".length());
        int options = jar.indexOf('=');
        try (JarFile file = new JarFile(
                Path.of(options < 0 ? jar : jar.substring(0, options)).toFile())) {
            Manifest manifest = file.getManifest();
            return manifest != null
                    && PERFPIN_PREMAIN.equals(manifest.getMainAttributes().getValue("Premain-Class"));
        } catch (IOException | RuntimeException notAJar) {
            return false;
        }
    }
}
