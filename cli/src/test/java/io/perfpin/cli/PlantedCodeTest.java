package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.files.ContentName;
import io.perfpin.report.Recording;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Root runs perfpin where another user has planted code for it: a library and an agent jar of exactly the size
 * perfpin's own have, reached through links and directories of theirs. Each planted piece writes a marker when
 * it runs; the marker must never appear, and what the other user made must be left as it was.
 */
class PlantedCodeTest {
    private static final String LIBRARY = "native/linux-x86_64/libperfpin.so";

    private Adversary adversary;
    /** Root's: the markers, root's home for the test, the planted code before the adversary copies it. */
    private Path work;

    private Path theirs;
    private Path marker;

    @BeforeEach
    void plant() throws Exception {
        adversary = Adversary.create();
        work = Files.createTempDirectory("perfpin-planted");
        // the adversary must read the planted files from here; the marker is written as root
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        marker = work.resolve("marker");
        theirs = adversary.newDirectory();
    }

    @AfterEach
    void clean() throws Exception {
        Adversary.removeAll(theirs);
        Adversary.removeAll(work);
    }

    /** java.io.tmpdir in a directory of theirs, where perfpin-root links to a directory holding the library. */
    @Test
    void statNeverLoadsALibraryPlantedBelowAnotherUsersTmpdir() throws Exception {
        byte[] library = resource(LIBRARY);
        Path planted = plantedLibrary(library.length);
        String name = "libperfpin-" + ContentName.of(library) + ".so";
        adversary.sh("mkdir -m 755 " + theirs + "/lib && cp " + planted + " " + theirs + "/lib/" + name + " && ln -s "
                + theirs + "/lib " + theirs + "/perfpin-root");
        byte[] before = Files.readAllBytes(theirs.resolve("lib").resolve(name));
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "60")) {
            service.await(Pattern.compile("ready"));
            Run stat = perfpin(
                    List.of("-Djava.io.tmpdir=" + theirs, "-Duser.home=" + work.resolve("home")),
                    Map.of(),
                    "stat",
                    "--pid",
                    String.valueOf(service.pid()),
                    "--threads",
                    "worker-.*",
                    "--duration",
                    "200ms");
            assertEquals(0, stat.code, stat.toString());
            assertTrue(stat.out.contains("worker-0"), stat.toString());
        }
        assertFalse(Files.exists(marker), "the planted library ran as root");
        assertEquals("rwxr-xr-x", mode(theirs), "their directory keeps its mode");
        assertArrayEquals(before, Files.readAllBytes(theirs.resolve("lib").resolve(name)), "and its content");
        assertTrue(Files.isSymbolicLink(theirs.resolve("perfpin-root")));
    }

    /** Their link to a directory of root's, named in --output: root's file there is left as it was. */
    @Test
    void statNeverReplacesRootsFileThroughAnotherUsersLinkedDirectory() throws Exception {
        Path roots = Files.createDirectory(work.resolve("roots"));
        Path precious = Files.writeString(roots.resolve("precious.csv"), "root's\n");
        Files.setPosixFilePermissions(precious, PosixFilePermissions.fromString("rw-r--r--"));
        Object inode = Files.getAttribute(precious, "unix:ino");
        adversary.sh("ln -s " + roots + " " + theirs + "/r");
        Path named = theirs.resolve("r/precious.csv");
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "60")) {
            service.await(Pattern.compile("ready"));
            Run stat = perfpin(
                    List.of("-Duser.home=" + work.resolve("home")),
                    Map.of(),
                    "stat",
                    "--pid",
                    String.valueOf(service.pid()),
                    "--duration",
                    "200ms",
                    "--format",
                    "csv",
                    "--output",
                    named.toString());
            assertEquals(ExitCode.FAILURE, stat.code, stat.toString());
            assertEquals(
                    "perfpin stat: --output: cannot open " + named + ": r is a symbolic link of uid "
                            + adversary.uid + " in a directory of uid " + adversary.uid
                            + "; perfpin follows links only where"
                            + " root or you (uid 0) own both\n",
                    stat.err,
                    stat.toString());
        }
        assertEquals("root's\n", Files.readString(precious));
        assertEquals(inode, Files.getAttribute(precious, "unix:ino"), "the same file, not a new one");
        assertEquals("rw-r--r--", mode(precious));
        try (Stream<Path> entries = Files.list(roots)) {
            assertEquals(1, entries.count(), "nothing was created beside it");
        }
    }

    /** The same planted library, met by the agent inside an application that root starts. */
    @Test
    void theAgentNeverLoadsALibraryPlantedBelowAnotherUsersTmpdir() throws Exception {
        byte[] library = resource(LIBRARY);
        Path planted = plantedLibrary(library.length);
        String name = "libperfpin-" + ContentName.of(library) + ".so";
        adversary.sh("mkdir -m 755 " + theirs + "/lib && cp " + planted + " " + theirs + "/lib/" + name + " && ln -s "
                + theirs + "/lib " + theirs + "/perfpin-root");
        Path recording = work.resolve("run.jsonl");
        Run app = java(
                List.of(
                        "-Djava.io.tmpdir=" + theirs,
                        "-Duser.home=" + work.resolve("home"),
                        "-javaagent:" + agentJar() + "=stats=off;events=task-clock;out=" + recording,
                        "-cp",
                        ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                        "io.perfpin.apps.ThreadChurner",
                        "--threads",
                        "4",
                        "--pages",
                        "1"),
                Map.of());
        assertEquals(0, app.code, app.toString());
        assertTrue(app.out.contains("result churn"), app.toString());
        assertFalse(app.out.contains("[perfpin]"), "the agent fell back without a word: " + app);
        assertFalse(Recording.read(recording).threads().isEmpty(), "the agent counted");
        assertFalse(Files.exists(marker), "the planted library ran as root");
    }

    /**
     * XDG_RUNTIME_DIR in a sticky directory, where the other user made perfpin-root a link to a tree of theirs
     * holding an agent jar under the very name and size of perfpin's: run refuses, one line, and nothing runs.
     */
    @Test
    void runNeverLoadsAnAgentJarPlantedInItsDirectory() throws Exception {
        byte[] agent = Files.readAllBytes(agentJar());
        Path planted = plantedAgentJar(agent.length);
        Path sticky = Files.createDirectory(work.resolve("runtime"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        adversary.sh("mkdir -p -m 755 " + theirs + "/agent/" + ContentName.of(agent) + " && cp " + planted + " "
                + theirs + "/agent/" + ContentName.of(agent) + "/perfpin-agent.jar && ln -s " + theirs + " " + sticky
                + "/perfpin-root");
        Run run = perfpin(
                List.of(),
                Map.of("XDG_RUNTIME_DIR", sticky.toString()),
                "run",
                "--",
                javaCommand(),
                "-cp",
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                "io.perfpin.apps.ThreadChurner",
                "--threads",
                "2",
                "--pages",
                "1");
        assertEquals(ExitCode.FAILURE, run.code, run.toString());
        assertEquals(
                "perfpin run: " + sticky.resolve("perfpin-root") + " is a symbolic link, not a directory that"
                        + " perfpin made: remove it, or point perfpin at another directory",
                run.err.strip());
        assertFalse(Files.exists(marker), "the planted agent ran as root");

        // the same tree as XDG_RUNTIME_DIR itself: a directory of another user's is no place for perfpin's
        adversary.sh("mv " + theirs + "/agent " + theirs + "/perfpin-agent-tree && mkdir -m 755 " + theirs
                + "/perfpin-root && mv " + theirs + "/perfpin-agent-tree " + theirs + "/perfpin-root/agent");
        run = perfpin(List.of(), Map.of("XDG_RUNTIME_DIR", theirs.toString()), "run", "--", javaCommand(), "-version");
        assertEquals(ExitCode.FAILURE, run.code, run.toString());
        assertEquals(
                "perfpin run: " + theirs + " belongs to uid " + adversary.uid + ", who could replace what perfpin"
                        + " keeps below it",
                run.err.strip());
        assertFalse(Files.exists(marker), "the planted agent ran as root");
    }

    /** A library of exactly {@code length} bytes whose constructor creates the marker. */
    private Path plantedLibrary(int length) throws Exception {
        Path source = Files.writeString(
                work.resolve("planted.c"),
                "#include <fcntl.h>\n#include <unistd.h>\n"
                        + "__attribute__((constructor)) static void planted(void) {\n"
                        + "    int fd = open(\"" + marker + "\", O_CREAT | O_WRONLY, 0644);\n"
                        + "    if (fd >= 0) close(fd);\n}\n");
        Path library = work.resolve("planted.so");
        Run cc = run(
                List.of(
                        "cc",
                        "-shared",
                        "-fPIC",
                        "-s",
                        "-Wl,-z,noseparate-code",
                        "-o",
                        library.toString(),
                        source.toString()),
                Map.of());
        assertEquals(0, cc.code, cc.toString());
        assertTrue(Files.size(library) <= length, "the planted library fits in " + length + " bytes");
        try (var out = java.nio.channels.FileChannel.open(library, java.nio.file.StandardOpenOption.WRITE)) {
            out.truncate(length); // no-op when equal
            out.write(java.nio.ByteBuffer.wrap(new byte[] {0}), length - 1L);
        }
        Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(length, Files.size(library));
        return library;
    }

    /** An agent jar of exactly {@code length} bytes whose premain and agentmain create the marker. */
    private Path plantedAgentJar(int length) throws Exception {
        Path classes = Files.createDirectory(work.resolve("planted-classes"));
        Path source = Files.writeString(
                classes.resolve("Planted.java"),
                "public class Planted {\n"
                        + "  public static void premain(String a, java.lang.instrument.Instrumentation i)"
                        + " throws Exception {\n"
                        + "    java.nio.file.Files.createFile(java.nio.file.Paths.get(\"" + marker + "\"));\n  }\n"
                        + "  public static void agentmain(String a, java.lang.instrument.Instrumentation i)"
                        + " throws Exception {\n    premain(a, i);\n  }\n}\n");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", classes.toString(), source.toString()));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", "Planted");
        manifest.getMainAttributes().putValue("Agent-Class", "Planted");
        java.io.ByteArrayOutputStream jar = new java.io.ByteArrayOutputStream();
        try (JarOutputStream out = new JarOutputStream(jar, manifest)) {
            out.putNextEntry(new JarEntry("Planted.class"));
            out.write(Files.readAllBytes(classes.resolve("Planted.class")));
            out.closeEntry();
        }
        // Zip readers find the archive from its end, so bytes before it keep it valid and set its size.
        Path planted = work.resolve("planted.jar");
        try (OutputStream out = Files.newOutputStream(planted)) {
            out.write(new byte[length - jar.size()]);
            jar.writeTo(out);
        }
        Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rw-r--r--"));
        return planted;
    }

    private static Path agentJar() throws URISyntaxException {
        return Paths.get(PlantedCodeTest.class
                .getClassLoader()
                .getResource("perfpin-agent.jar")
                .toURI());
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = PlantedCodeTest.class.getClassLoader().getResourceAsStream(name)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(in != null, "built without the C library");
            return in.readAllBytes();
        }
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    private static String javaCommand() {
        return TestJvm.ownJava();
    }

    /** The perfpin command in a JVM of its own, with these JVM options and environment. */
    private static Run perfpin(List<String> jvmOptions, Map<String, String> environment, String... args)
            throws IOException, InterruptedException {
        return run(TestJvm.main(Perfpin.class).jvmOptions(jvmOptions).args(args), environment);
    }

    private static Run java(List<String> arguments, Map<String, String> environment)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(javaCommand()));
        command.addAll(arguments);
        return run(command, environment);
    }

    private static Run run(List<String> command, Map<String, String> environment)
            throws IOException, InterruptedException {
        return run(TestJvm.program(command), environment);
    }

    /** Runs it with its input closed, to its end within two minutes. */
    private static Run run(TestJvm.Builder command, Map<String, String> environment)
            throws IOException, InterruptedException {
        try (TestJvm process = command.environment(environment).start()) {
            process.closeInput();
            int code = process.exitWithin(Duration.ofSeconds(120));
            return new Run(code, process.output(), process.errorOutput());
        }
    }

    private record Run(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }
}
