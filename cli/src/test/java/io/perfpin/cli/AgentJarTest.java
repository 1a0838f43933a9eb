package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.perfpin.jvm.AgentJar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;

/** Where the agent jar comes from for a JVM of this user's (another user's: ContainerAttachTest, AttachCommandTest). */
class AgentJarTest {
    @Test
    void aJvmOfThisUsersGetsAPrivateCopy() throws Exception {
        Path jar = AgentJar.forThisUser();
        assertEquals("perfpin-agent.jar", jar.getFileName().toString());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar.getParent())));
        assertEquals(jar, AgentJar.forThisUser(), "installed once, then reused");
    }
}
