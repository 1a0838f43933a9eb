package io.perfpin.cli;

import io.perfpin.PerfpinDirectory;
import io.perfpin.nativeio.PrivateFiles;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Where the agent jar that {@code run} and {@code attach} load comes from: {@code -Dperfpin.agent.jar} when
 * set, otherwise the copy packaged inside the CLI's jar, written once into the private per-user perfpin
 * directory under a directory named by its content hash. The file keeps the name {@code perfpin-agent.jar},
 * which its manifest's {@code Boot-Class-Path} names.
 */
final class AgentJar {
    static final String PROPERTY = "perfpin.agent.jar";
    private static final String RESOURCE = "perfpin-agent.jar";

    private AgentJar() {
    }

    static Path locate() throws IOException {
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
                throw new IOException("this perfpin.jar carries no agent; rebuild it with ./mvnw -B package, or set -D"
                        + PROPERTY + "=<path to perfpin-agent.jar>");
            }
            content = in.readAllBytes();
        }
        Path dir = PerfpinDirectory.base().resolve("agent").resolve(PrivateFiles.contentName(content));
        PrivateFiles.createPrivateDirectories(dir);
        return PrivateFiles.writeOnce(content, dir.resolve(RESOURCE));
    }
}
