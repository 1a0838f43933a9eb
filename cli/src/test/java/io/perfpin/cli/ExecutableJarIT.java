package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import io.perfpin.testkit.TestJvm;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The CLI's packaged jar, run as the launcher runs it ({@code java -jar perfpin.jar}), on the newest JDK the build
 * has: a JDK that warns when class-path code loads a JNI library finds native access enabled by the jar's manifest,
 * so that a count says nothing on stderr but its own lines.
 */
class ExecutableJarIT {
    private static final Path JAR = Path.of(System.getProperty("perfpin.cli.jar"));

    @Test
    void statOnJdk25WarnsOfNothing() throws Exception {
        Optional<String> secondJava = Programs.secondJava();
        assumeTrue(secondJava.isPresent(), "no second JDK: set JDK25_HOME");
        String java = secondJava.get();
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            List<String> said = TestJvm.program(
                            java,
                            "-jar",
                            JAR.toString(),
                            "stat",
                            Long.toString(service.pid()),
                            "--events",
                            "task-clock",
                            "--duration",
                            "50ms")
                    .mergeStderr()
                    .run();
            assertTrue(said.stream().anyMatch(l -> l.startsWith("counts over ")), String.join("\n", said));
            assertEquals(
                    List.of(),
                    said.stream().filter(l -> l.contains("WARNING")).toList(),
                    "JNI loaded with native access enabled, no warning");
        }
    }
}
