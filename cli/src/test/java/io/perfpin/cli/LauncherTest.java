package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher, {@code ./perfpin}, maps the CLI's class-data sharing archive into a JVM that runs as root: it uses
 * the archive only where the invoking user or root wrote it and nobody else may write it, and the script that makes
 * it never replaces a file it did not make. The launcher runs here as a copy beside a jar of one class, a probe named
 * as the CLI's main class is, and an archive of that class, dumped as the build dumps the CLI's; whether the archive
 * was used is where the JVM says it loaded the class from ({@code -Xlog:class+load}, through {@code
 * PERFPIN_JAVA_OPTS}).
 */
class LauncherTest {
    private static final Path LAUNCHER = Paths.get("..", "perfpin");
    private static final Path ARCHIVE_SCRIPT = Paths.get("src", "main", "sh", "cds-archive.sh");
    /** Another user's, as root may make a file: nobody's. */
    private static final int OTHER_UID = 65534;
    /** The probe's class: the CLI's main class, as the launcher names it. */
    private static final String PROBE = Perfpin.class.getName();
    /** What the probe prints. */
    private static final String RAN = "probe ran";

    private static final String JAVA_BIN =
            Paths.get(System.getProperty("java.home"), "bin").toString();

    @TempDir
    Path dir;

    private Path jar;
    private Path jsa;

    /** The launcher's layout: {@code perfpin}, {@code cli/target/perfpin.jar} and {@code cli/target/perfpin.jsa}. */
    @BeforeEach
    void layOut() throws Exception {
        Path target = Files.createDirectories(dir.resolve("cli").resolve("target"));
        Files.copy(LAUNCHER, dir.resolve("perfpin"));
        jar = target.resolve("perfpin.jar");
        jsa = target.resolve("perfpin.jsa");
        writeProbeJar(jar);
        Path classList = Files.writeString(dir.resolve("classlist"), PROBE.replace('.', '/') + "\n");
        // as cds-archive.sh dumps the CLI's: the launcher's options, the jar as the launcher names it
        String said = run(
                Map.of(),
                Paths.get(JAVA_BIN, "java").toString(),
                "-Xshare:dump",
                "-XX:SharedClassListFile=" + classList,
                "-XX:SharedArchiveFile=" + jsa,
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xlog:cds=off",
                "-Xlog:cds+dynamic=off",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                jar.toString());
        assertTrue(Files.isRegularFile(jsa), "the archive dumped: " + said);
    }

    @Test
    void anArchiveOfTheUsersOwnThatNobodyElseMayWriteIsUsed() throws Exception {
        assertTrue(probeFromArchive(), "the probe's class from the archive");
    }

    @Test
    void anArchiveTheGroupOrOthersMayWriteIsLeftOut() throws Exception {
        for (String mode : List.of("rw-rw-r--", "rw-r--rw-")) {
            Files.setPosixFilePermissions(jsa, PosixFilePermissions.fromString(mode));
            assertFalse(probeFromArchive(), "an archive " + mode + " is left out");
        }
    }

    @Test
    void aLinkToAnArchiveIsLeftOut() throws Exception {
        Path real = Files.move(jsa, jsa.resolveSibling("elsewhere.jsa"));
        Files.createSymbolicLink(jsa, real);
        assertFalse(probeFromArchive(), "a symbolic link is left out, whatever it points to");
    }

    @Test
    void anArchiveOfAnotherUsersIsLeftOut() throws Exception {
        assumeTrue(isRoot(), "only root can give a file to another user");
        Files.setAttribute(jsa, "unix:uid", OTHER_UID);
        assertFalse(probeFromArchive(), "another user's archive is left out");
    }

    /** What the build finds at the archive's path and did not make stays as it is, and it says why it made none. */
    @Test
    void theArchiveScriptLeavesAFileItDidNotMakeAsItIs() throws Exception {
        Path real = Files.writeString(dir.resolve("not-an-archive"), "kept");
        Files.delete(jsa);
        Files.createSymbolicLink(jsa, real);
        assertLeftAsItIs("a symbolic link");
        if (isRoot()) {
            Files.delete(jsa);
            Files.writeString(jsa, "kept");
            Files.setAttribute(jsa, "unix:uid", OTHER_UID);
            assertLeftAsItIs("another user's file");
            assertEquals(OTHER_UID, (int) Files.getAttribute(jsa, "unix:uid"), "still another user's");
        }
    }

    private void assertLeftAsItIs(String what) throws Exception {
        String said = run(
                Map.of(),
                "sh",
                ARCHIVE_SCRIPT.toString(),
                dir.resolve("perfpin").toString(),
                jar.toString(),
                jsa.toString());
        assertEquals("kept", Files.readString(jsa), what + " left as it is");
        assertTrue(
                said.contains("[perfpin] no class-data sharing archive for the CLI (" + jsa + " is not a file of"
                        + " this user's: left as it is)"),
                what + ": " + said);
    }

    /** Whether the launcher, run as a user runs it, loaded the probe's class from the archive. */
    private boolean probeFromArchive() throws Exception {
        String said = run(
                Map.of("PERFPIN_JAVA_OPTS", "-Xlog:class+load"),
                dir.resolve("perfpin").toString());
        String loaded = said.lines()
                .filter(l -> l.contains("] " + PROBE + " source: "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the probe's class not loaded: " + said));
        assertTrue(said.contains(RAN), "the probe ran: " + said);
        return loaded.endsWith(" source: shared objects file");
    }

    /**
     * A jar of one class, named as the CLI's main class is ({@link Perfpin}, which the launcher names), that prints
     * {@link #RAN}: compiled here, since this module's own class of that name is the CLI.
     */
    private static void writeProbeJar(Path jar) throws IOException {
        Path sources = Files.createTempDirectory(jar.getParent(), "probe");
        Path source = Files.writeString(
                sources.resolve("Perfpin.java"),
                "package io.perfpin.cli;\n"
                        + "public final class Perfpin {\n"
                        + "    public static void main(String[] args) {\n"
                        + "        System.out.println(\"" + RAN + "\");\n"
                        + "    }\n"
                        + "}\n");
        int compiled =
                ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", sources.toString(), source.toString());
        assertEquals(0, compiled, "the probe compiled");
        String entry = PROBE.replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file)) {
            out.putNextEntry(new JarEntry(entry));
            Files.copy(sources.resolve(entry), out);
            out.closeEntry();
        }
    }

    private static boolean isRoot() throws Exception {
        return "0".equals(run(Map.of(), "id", "-u").strip());
    }

    /** Standard output and error of a command that must succeed, with {@code env} and this JDK first on the PATH. */
    private static String run(Map<String, String> env, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true);
        builder.environment().putAll(env);
        builder.environment().put("PATH", JAVA_BIN + ":" + System.getenv("PATH"));
        Process process = builder.start();
        String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        assertEquals(0, process.exitValue(), () -> String.join(" ", command) + ": " + said);
        return said;
    }
}
