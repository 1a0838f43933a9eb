package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import io.perfpin.testkit.TestJvm;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
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
 * The CLI's packaged jar, run as {@code java -jar perfpin.jar} and as the launcher runs it (its main class named, the
 * jar on the class path, with {@code --enable-native-access=ALL-UNNAMED}), on the newest JDK the build has: a JDK that
 * warns when class-path code loads a JNI library finds native access enabled, by the jar's manifest or by the option,
 * so that a count says nothing on stderr but its own lines.
 */
class ExecutableJarIT {
    private static final Path JAR = Path.of(System.getProperty("perfpin.cli.jar"));

    @Test
    void statOnJdk25WarnsOfNothing() throws Exception {
        Optional<String> secondJava = Programs.secondJava();
        assumeTrue(secondJava.isPresent(), "no second JDK: set JDK25_HOME");
        String java = secondJava.get();
        List<List<String>> commands = List.of(
                List.of("-jar", JAR.toString()),
                List.of("--enable-native-access=ALL-UNNAMED", "-cp", JAR.toString(), Perfpin.class.getName()));
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            for (List<String> command : commands) {
                List<String> line = new ArrayList<>(List.of(java));
                line.addAll(command);
                line.addAll(
                        List.of("stat", Long.toString(service.pid()), "--events", "task-clock", "--duration", "50ms"));
                List<String> said = TestJvm.program(line.toArray(String[]::new))
                        .mergeStderr()
                        .run();
                assertTrue(said.stream().anyMatch(l -> l.startsWith("counts over ")), command + ": " + said);
                assertEquals(
                        List.of(),
                        said.stream().filter(l -> l.contains("WARNING")).toList(),
                        command + ": JNI loaded with native access enabled, no warning");
            }
        }
    }

    /**
     * Every class file in the jar has Java 6's format or a newer one, picocli's too (the build rewrites them,
     * src/build/java/ClassFileUpgrade.java): the class-data sharing archive then holds them verified, where an older
     * one would go through the old verifier at every start. Each rewritten class is loaded and initialised here from
     * the jar, so the JVM verifies it with the frames the build computed (the other tests of the CLI run picocli's jar
     * as published): a frame got wrong is a VerifyError.
     */
    @Test
    void everyClassFileIsJava6sFormatOrNewer() throws Exception {
        List<String> old = new ArrayList<>();
        List<String> picocli = new ArrayList<>();
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
                if (entry.getName().startsWith("picocli/")) {
                    picocli.add(entry.getName()
                            .replace('/', '.')
                            .substring(0, entry.getName().length() - 6));
                }
            }
        }
        assertEquals(List.of(), old);
        assertTrue(picocli.size() > 100, "picocli's classes are in the jar: " + picocli.size());
        try (URLClassLoader jar =
                new URLClassLoader(new URL[] {JAR.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            for (String name : picocli) {
                assertEquals(jar, Class.forName(name, true, jar).getClassLoader(), name);
            }
        }
    }
}
