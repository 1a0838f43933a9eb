package io.perfpin.cli;

import io.perfpin.jvm.AgentJar;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where the agent jar comes from, for a JVM of this user's and for one of another user's. */
class AgentJarTest {
    @Test
    void aJvmOfThisUsersGetsAPrivateCopy() throws Exception {
        Path jar = AgentJar.forThisUser();
        assertEquals("perfpin-agent.jar", jar.getFileName().toString());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar.getParent())));
        assertEquals(jar, AgentJar.forThisUser(), "installed once, then reused");
    }

    /** Root attaching to another user's JVM: that user must read the jar, and no one but root may replace it. */
    @Test
    void anotherUsersJvmGetsACopyItCanReadAndNoOneElseCanReplace() throws Exception {
        Adversary other = Adversary.create();
        Path jar = AgentJar.forUser(other.uid);
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)));
        assertEquals(0, (int) Files.getAttribute(jar, "unix:uid"));
        assertTrue(other.can("head -c 4 " + jar + " >/dev/null"), "the JVM's user reads it");
        assertFalse(other.can("echo planted > " + jar), "nor writes it");
        assertFalse(other.can("mv " + jar + " " + jar + ".moved"), "nor moves it");
        assertFalse(other.can("rm -rf " + jar.getParent()), "nor removes its directory");
        assertTrue(Files.isRegularFile(jar));
    }
}
