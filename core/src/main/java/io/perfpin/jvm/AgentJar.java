package io.perfpin.jvm;

import io.perfpin.PerfpinDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Where the agent jar that {@code run}, {@code attach} and the JMH profiler load comes from:
 * {@code -Dperfpin.agent.jar} when set, otherwise the copy packaged inside the jar this class runs from (the CLI's
 * {@code perfpin.jar}, {@code perfpin-jmh.jar}), installed under a directory named by its content
 * ({@link PerfpinDirectory#installedJar}).
 *
 * <p>A JVM this user starts, or attaches to in this mount namespace, gets it from this user's private perfpin
 * directory. Any other JVM (another user's, or one in a container) gets a copy of it in its own {@code /tmp}, made
 * as its own user when perfpin attaches ({@link AgentLoader}).
 */
public final class AgentJar {
    public static final String PROPERTY = "perfpin.agent.jar";
    private static final String RESOURCE = "perfpin-agent.jar";

    private AgentJar() {}

    /** The agent jar for a JVM of this user's. */
    public static Path forThisUser() throws IOException {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isEmpty()) {
            Path jar = Paths.get(configured).toAbsolutePath();
            if (!Files.isRegularFile(jar)) {
                throw new IOException("-D" + PROPERTY + "=" + configured + ": no such file");
            }
            return jar;
        }
        byte[] content;
        try (InputStream in = AgentJar.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException("this jar carries no perfpin agent; rebuild perfpin with ./mvnw -B package,"
                        + " or set -D" + PROPERTY + "=<path to perfpin-agent.jar>");
            }
            content = in.readAllBytes();
        }
        return PerfpinDirectory.installedJar(RESOURCE, content);
    }
}
