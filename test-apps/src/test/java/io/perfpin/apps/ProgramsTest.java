package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

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
