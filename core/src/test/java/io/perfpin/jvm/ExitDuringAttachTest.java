package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.perfpin.testkit.TestJvm;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A JVM that exits while perfpin attaches is a process that is gone, not a JVM that refused. */
class ExitDuringAttachTest {
    @TempDir
    Path dir;

    @Test
    void aJvmThatExitsBeforeItAnswersIsNoSuchProcess() throws Exception {
        Path jar = haltingAgentJar();
        try (TestJvm jvm = TestJvm.main(HaltingAgent.class).mergeStderr().start()) {
            jvm.await("ready");
            AttachException e = assertThrows(
                    AttachException.class, () -> AgentLoader.load(jvm.pid(), jar, null, Duration.ofSeconds(20)));
            assertEquals(AttachException.Category.NO_SUCH_PROCESS, e.category(), e.getMessage());
            assertEquals("process " + jvm.pid() + " (java) exited while perfpin attached", e.getMessage());
            assertEquals(0, jvm.awaitExit());
        }
    }

    /** An agent jar of {@link HaltingAgent}. */
    private Path haltingAgentJar() throws Exception {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Agent-Class", HaltingAgent.class.getName());
        Path jar = dir.resolve("halting-agent.jar");
        String entry = HaltingAgent.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream bytes = HaltingAgent.class.getResourceAsStream("/" + entry)) {
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
