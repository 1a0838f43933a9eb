package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.files.PackagedCopy;
import io.perfpin.jvm.AgentLoader;
import io.perfpin.nativeio.JniLibrary;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The libraries only some uses need (byte-buddy for weaving, OpenTelemetry and Prometheus for exports, JNA and jffi
 * for their backends) are jars of their own inside the agent jar, so that the JVM does not read their thousands of
 * entries' names at every start: the agent jar holds none of their entries, each library jar holds its own, and a
 * JVM installs one only when it needs it, with the packaged bytes.
 */
class AgentLibrariesIT {
    private static final String LIB = ImplementationClassLoader.PREFIX + "lib/";

    @Test
    void everyLibraryEntryIsInItsLibrarysJarAndNoneInTheAgentJar() throws IOException {
        try (JarFile agent = new JarFile(AppJvm.AGENT_JAR.toFile())) {
            List<String> strays = agent.stream()
                    .map(JarEntry::getName)
                    .filter(name -> name.startsWith(ImplementationClassLoader.PREFIX))
                    .map(name -> name.substring(ImplementationClassLoader.PREFIX.length()))
                    .filter(name ->
                            library(name) != null && !name.equals(library(name).prefix()))
                    .collect(Collectors.toList());
            assertEquals(List.of(), strays, "library entries left in the agent jar");
            assertTrue(agent.size() < 1000, "the agent jar's entries: " + agent.size());

            for (String jar : jars()) {
                Set<String> prefixesSeen = new HashSet<>();
                List<String> foreign = new ArrayList<>();
                try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(packaged(agent, jar)))) {
                    for (JarEntry entry = in.getNextJarEntry(); entry != null; entry = in.getNextJarEntry()) {
                        Library library = library(entry.getName());
                        if (entry.isDirectory()) {
                            continue;
                        }
                        if (library == null || !library.jar().equals(jar)) {
                            foreign.add(entry.getName());
                        } else {
                            prefixesSeen.add(library.prefix());
                        }
                    }
                }
                assertEquals(List.of(), foreign, jar + " holds only its libraries' entries");
                Set<String> prefixes = libraries().stream()
                        .filter(l -> l.jar().equals(jar))
                        .map(Library::prefix)
                        .collect(Collectors.toSet());
                assertEquals(prefixes, prefixesSeen, jar + " holds an entry of each of its libraries");
            }
        }
    }

    @Test
    void aJvmCopiesALibraryOnlyWhenItNeedsItAndWithThePackagedBytes(@TempDir Path dir) throws Exception {
        String java = AppJvm.javas().findFirst().orElseThrow();
        Path plain = privateDirectory(dir.resolve("plain"));
        try (AppJvm app = AppJvm.start(java, "threads=.*;events=sched", dir, extractDir(plain))) {
            app.await("ready");
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());
        }
        assertEquals(List.of(), copied(plain), "a JVM that weaves and exports nothing copies no library");

        Path weaving = privateDirectory(dir.resolve("weaving"));
        try (AppJvm app = AppJvm.start(java, "events=sched", dir, extractDir(weaving))) {
            app.await("ready");
            app.send("annotated annotated-1 16");
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("annotated-1")), "@Pinned(\"1\") woven");
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());
        }
        List<Path> copied = copied(weaving);
        assertEquals(1, copied.size(), "byte-buddy alone: " + copied);
        assertTrue(
                copied.get(0).getFileName().toString().startsWith("byte-buddy-"),
                copied.get(0).toString());
        try (JarFile agent = new JarFile(AppJvm.AGENT_JAR.toFile())) {
            assertArrayEquals(packaged(agent, "byte-buddy.jar"), Files.readAllBytes(copied.get(0)));
        }
    }

    /** An attach reads a running thread's class with byte-buddy only where its class file names the annotations. */
    @Test
    void anAttachCopiesNoLibraryForThreadsWhoseClassesNameNoAnnotations(@TempDir Path dir) throws Exception {
        String java = AppJvm.javas().findFirst().orElseThrow();
        Path extract = privateDirectory(dir.resolve("extract"));
        try (AppJvm app = AppJvm.start(java, null, dir, extractDir(extract))) {
            app.await("ready");
            app.send("start early-1 0");
            int early = app.touched("early-1");
            // the rules name early-1 alone: every other thread (main, the JVM's own) is looked at for annotations,
            // in the same pass over the running threads that enrols early-1
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "threads=early-.*;events=sched", Duration.ofSeconds(20));
            Path stats = Observed.statsFile(dir, app.pid());
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (Observed.liveValue(stats, early, "task-clock").isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "early-1 enrolled within 30 s");
                Thread.sleep(20);
            }
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", Duration.ofSeconds(20));
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());
        }
        assertEquals(List.of(), copied(extract), "no library copied for an attach without annotations");
    }

    /**
     * Where no private directory takes a library's copy, what needs it says why, once, on stderr, and does not
     * happen; the application runs on, counted. (The JNI library then loads from where -Dperfpin.library says.)
     */
    @Test
    void aLibraryThatCannotBeCopiedIsSaidWithWhyAndTheApplicationRunsOn(@TempDir Path dir) throws Exception {
        String java = AppJvm.javas().findFirst().orElseThrow();
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Path out = dir.resolve("run.jsonl");
        try (AppJvm app = AppJvm.start(
                java,
                "events=sched;out=" + out + ";prometheus=127.0.0.1:" + port,
                dir,
                extractDir(shared),
                "-D" + JniLibrary.LIBRARY_PROPERTY + "=" + jniLibrary(privateDirectory(dir.resolve("jni"))))) {
            app.await("ready");
            app.send("annotated annotated-1 16");
            int tid = app.touched("annotated-1");
            assertEquals(0, app.finish(), "the application runs on");
            List<String> said = app.stderr();
            assertEquals(2, said.size(), "one line for weaving, one for Prometheus: " + said);
            assertTrue(
                    said.stream()
                            .anyMatch(line -> line.startsWith(
                                            "[perfpin] cannot weave perfpin's annotations, they are" + " ignored: ")
                                    && line.contains("byte-buddy: the agent could not copy its byte-buddy.jar: ")
                                    && line.contains(shared.toString())),
                    said.toString());
            assertTrue(
                    said.stream()
                            .anyMatch(line -> line.startsWith("[perfpin] ")
                                    && line.contains(
                                            "the Prometheus client: the agent could not copy its exports.jar: ")),
                    said.toString());
            assertEquals(
                    1,
                    Observed.records(out, "thread", "annotated-1").size(),
                    "the unwoven thread is counted by its name rule: " + tid);
        }
        try (Stream<Path> files = Files.list(shared)) {
            assertEquals(List.of(), files.collect(Collectors.toList()), "nothing written where others may write");
        }
    }

    /** The agent jar's JNI library, copied out into {@code dir}, as a JVM that cannot copy it itself is given it. */
    private static Path jniLibrary(Path dir) throws IOException {
        try (JarFile agent = new JarFile(AppJvm.AGENT_JAR.toFile())) {
            JarEntry entry = agent.getJarEntry(
                    ImplementationClassLoader.PREFIX + "native/" + JniLibrary.platform() + "/libperfpin.so");
            assumeTrue(entry != null, "the agent jar has a JNI library for " + JniLibrary.platform());
            Path library = dir.resolve("libperfpin.so");
            try (InputStream in = agent.getInputStream(entry)) {
                Files.copy(in, library);
            }
            return library;
        }
    }

    private static String extractDir(Path dir) {
        return "-D" + PackagedCopy.EXTRACT_DIR_PROPERTY + "=" + dir;
    }

    private static Path privateDirectory(Path dir) throws IOException {
        return Files.createDirectory(
                dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** A library of the agent's: where its entries' names start, and its jar under perfpin-impl/lib/. */
    private record Library(String prefix, String jar) {}

    private static List<Library> libraries() {
        List<Library> libraries = new ArrayList<>();
        for (int i = 0; i < ImplementationClassLoader.LIBRARY_PREFIXES.length; i++) {
            libraries.add(new Library(
                    ImplementationClassLoader.LIBRARY_PREFIXES[i], ImplementationClassLoader.LIBRARY_JARS[i]));
        }
        return libraries;
    }

    /** The library whose entries' names start as {@code name} does; null for none. */
    private static Library library(String name) {
        for (Library library : libraries()) {
            if (name.startsWith(library.prefix())) {
                return library;
            }
        }
        return null;
    }

    private static Set<String> jars() {
        return libraries().stream().map(Library::jar).collect(Collectors.toSet());
    }

    private static byte[] packaged(JarFile agent, String jar) throws IOException {
        JarEntry entry = agent.getJarEntry(LIB + jar);
        assertNotNull(entry, LIB + jar + " in the agent jar");
        try (InputStream in = agent.getInputStream(entry)) {
            return in.readAllBytes();
        }
    }

    /** The library jars copied into {@code extractDir}. */
    private static List<Path> copied(Path extractDir) throws IOException {
        try (Stream<Path> files = Files.list(extractDir)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                    .collect(Collectors.toList());
            assertFalse(found.stream().anyMatch(Files::isSymbolicLink), "no links: " + found);
            return found;
        }
    }
}
