package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
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

    /**
     * Every class file in the jar has Java 6's format or a newer one, picocli's too (the build rewrites them,
     * src/build/java/ClassFileUpgrade.java): the class-data sharing archive then holds them verified, where an older
     * one would go through the old verifier at every start. The rewritten classes parse a command line as before:
     * every other test of the CLI runs them.
     */
    @Test
    void everyClassFileIsJava6sFormatOrNewer() throws IOException {
        List<String> old = new ArrayList<>();
        int picocli = 0;
        try (ZipFile jar = new ZipFile(JAR.toFile())) {
            for (ZipEntry entry : Collections.list(jar.entries())) {
                if (!entry.getName().endsWith(".class")) {
                    continue;
                }
                byte[] header;
                try (InputStream in = jar.getInputStream(entry)) {
                    header = in.readNBytes(8);
                }
                if (((header[6] & 0xFF) << 8 | header[7] & 0xFF) < 50) {
                    old.add(entry.getName());
                }
                picocli += entry.getName().startsWith("picocli/") ? 1 : 0;
            }
        }
        assertEquals(List.of(), old);
        assertTrue(picocli > 100, "picocli's classes are in the jar: " + picocli);
    }
}
