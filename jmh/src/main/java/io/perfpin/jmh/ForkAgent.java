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

    /** The fork's options to add: the agent's, or none. */
    static List<String> options(ProfilerOptions options, Collection<String> forkJvmArguments) {
        if (!options.agent()
                || Stream.concat(forkJvmArguments.stream(), inheritedOptions()).anyMatch(ForkAgent::isPerfpin)) {
            return List.of();
        }
        try {
            String threads =
                    options.threads() == null ? ".*" : options.threads().toString();
            return List.of(
                    AgentJar.startOption("threads=" + threads + ";events=sched;quiet", List.copyOf(forkJvmArguments)));
        } catch (IOException | RuntimeException e) {
            Notes.say("the forked JVM runs without the agent, so no live view shows it: " + e.getMessage());
            return List.of();
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
