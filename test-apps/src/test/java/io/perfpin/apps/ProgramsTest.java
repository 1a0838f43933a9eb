package io.perfpin.apps;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgramsTest {
    @Test
    void theShellIsFoundOnThePathAsAnExecutableFile() {
        Path sh = Programs.onPath("sh").orElseThrow(() -> new AssertionError("no sh on " + System.getenv("PATH")));

        assertEquals("sh", sh.getFileName().toString());
        assertTrue(sh.isAbsolute() && Files.isExecutable(sh), sh::toString);
    }

    @Test
    void aProgramNowhereOnThePathIsNotFound() {
        assertTrue(Programs.onPath("perfpin-no-such-program").isEmpty());
    }
}
