package io.perfpin.apps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * The programs that tests and benchmarks run beside perfpin, found where the environment says and never at a
 * fixed path, which differs between distributions: a command on the {@code PATH}, and the second JDK the build
 * was given (see CONTRIBUTING.md). A caller that needs one and does not find it skips, saying which.
 */
public final class Programs {
    /** Set by the build to the second JDK's {@code java} when {@code JDK25_HOME} names one; empty otherwise. */
    public static final String SECOND_JAVA_PROPERTY = "perfpin.jdk25.java";

    private Programs() {}

    /**
     * The first executable file {@code name} in a directory of {@code PATH}, as the shell finds it. An empty entry
     * (the working directory, to the shell) is passed over: the tests run as root, and root should not run what
     * the working directory holds.
     */
    public static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Paths.get(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * The second JDK's {@code java} (JDK 25), when the build was given one. Not checked here: a wrong
     * {@code JDK25_HOME} fails the tests that use it, where a skip would hide it.
     */
    public static Optional<String> secondJava() {
        String java = System.getProperty(SECOND_JAVA_PROPERTY, "");
        return java.isEmpty() ? Optional.empty() : Optional.of(java);
    }
}
