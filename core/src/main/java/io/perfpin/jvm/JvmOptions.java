package io.perfpin.jvm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The options and environment a running JVM was started with, as far as the kernel shows them: the environment's
 * {@code JAVA_TOOL_OPTIONS}, {@code JDK_JAVA_OPTIONS}, the command line, then {@code _JAVA_OPTIONS}, the order in
 * which the JVM reads them, so the last setting of a flag wins. Options in {@code @argfiles} or
 * {@code -XX:Flags=} files are not seen: the JVM's hsperfdata ({@link PerfData}) is asked first where it says, and a
 * running agent's stats file is found by the JVM's mappings first ({@link AgentStatsFile}).
 */
final class JvmOptions {
    private final List<String> options;
    private final List<String> environment;

    private JvmOptions(List<String> options, List<String> environment) {
        this.options = options;
        this.environment = environment;
    }

    static JvmOptions of(long pid) {
        List<String> options = new ArrayList<>();
        List<String> environment = nulSeparated(Path.of("/proc/" + pid + "/environ"));
        for (String variable : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")) {
            options.addAll(words(environment, variable));
        }
        options.addAll(nulSeparated(Path.of("/proc/" + pid + "/cmdline")));
        options.addAll(words(environment, "_JAVA_OPTIONS"));
        return new JvmOptions(options, environment);
    }

    /** The last {@code -Dname=value} given; empty when none. */
    Optional<String> systemProperty(String name) {
        Optional<String> last = Optional.empty();
        for (String option : options) {
            if (option.startsWith("-D" + name + "=")) {
                last = Optional.of(option.substring(name.length() + 3));
            }
        }
        return last;
    }

    /** An environment variable of the process; empty when unset, or when its environment cannot be read. */
    Optional<String> environment(String variable) {
        return environment.stream()
                .filter(e -> e.startsWith(variable + "="))
                .findFirst()
                .map(e -> e.substring(variable.length() + 1));
    }

    /** The last setting of boolean flag {@code name} ({@code -XX:+name} or {@code -XX:-name}); empty when unset. */
    Optional<Boolean> lastFlag(String name) {
        Optional<Boolean> last = Optional.empty();
        for (String option : options) {
            if (option.equals("-XX:+" + name)) {
                last = Optional.of(true);
            } else if (option.equals("-XX:-" + name)) {
                last = Optional.of(false);
            }
        }
        return last;
    }

    private static List<String> words(List<String> environment, String variable) {
        List<String> words = new ArrayList<>();
        for (String entry : environment) {
            if (entry.startsWith(variable + "=")) {
                for (String word : entry.substring(variable.length() + 1).trim().split("\\s+")) {
                    words.add(word);
                }
            }
        }
        return words;
    }

    /** What /proc shows of a process we may not read (another user's environment) is simply absent. */
    private static List<String> nulSeparated(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            String text = new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
            return text.isEmpty() ? List.of() : List.of(text.split("\0"));
        } catch (IOException e) {
            return List.of();
        }
    }
}
