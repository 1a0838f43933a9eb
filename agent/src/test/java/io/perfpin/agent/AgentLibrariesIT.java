package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.agent.ImplementationClassLoader.Library;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
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
                Set<String> prefixes = ImplementationClassLoader.LIBRARIES.stream()
                        .filter(l -> l.jar().equals(jar))
                        .map(Library::prefix)
                        .collect(Collectors.toSet());
                assertEquals(prefixes, prefixesSeen, jar + " holds an entry of each of its libraries");
            }
        }
    }

    @Test
    void aJvmInstallsALibraryOnlyWhenItNeedsItAndWithThePackagedBytes(@TempDir Path dir) throws Exception {
        String java = AppJvm.javas().findFirst().orElseThrow();
        Path plain = privateDirectory(dir.resolve("plain"));
        try (AppJvm app = AppJvm.start(java, "threads=.*;events=sched", plain)) {
            app.await("ready");
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());
        }
        assertEquals(List.of(), installed(plain), "a JVM that weaves and exports nothing installs no library");

        Path weaving = privateDirectory(dir.resolve("weaving"));
        try (AppJvm app = AppJvm.start(java, "events=sched", weaving)) {
            app.await("ready");
            app.send("annotated annotated-1 16");
            assertEquals("1", Observed.cpusAllowed(app.pid(), app.touched("annotated-1")), "@Pinned(\"1\") woven");
            assertEquals(0, app.finish());
            assertTrue(app.stderr().isEmpty(), "the agent said nothing: " + app.stderr());
        }
        List<Path> installed = installed(weaving);
        assertEquals(1, installed.size(), "byte-buddy alone: " + installed);
        assertEquals("byte-buddy.jar", installed.get(0).getFileName().toString());
        try (JarFile agent = new JarFile(AppJvm.AGENT_JAR.toFile())) {
            assertArrayEquals(packaged(agent, "byte-buddy.jar"), Files.readAllBytes(installed.get(0)));
        }
    }

    /** A library that cannot be installed leaves its use undone, says why on stderr, and the application runs on. */
    @Test
    void aLibraryThatCannotBeInstalledIsSaidWithWhy(@TempDir Path dir) throws Exception {
        String java = AppJvm.javas().findFirst().orElseThrow();
        Files.writeString(dir.resolve("agent"), "not a directory");
        try (AppJvm app = AppJvm.start(java, "events=sched", dir)) {
            app.await("ready");
            app.send("annotated annotated-1 16");
            app.touched("annotated-1");
            assertEquals(0, app.finish(), "the application runs on");
            List<String> said = app.stderr();
            assertEquals(1, said.size(), "one line: " + said);
            assertTrue(
                    said.get(0).startsWith("[perfpin] cannot weave perfpin's annotations, they are ignored: ")
                            && said.get(0).contains("(the agent could not install its byte-buddy.jar: "),
                    said.get(0));
        }
        assertEquals("not a directory", Files.readString(dir.resolve("agent")), "left as it was");
    }

    private static Path privateDirectory(Path dir) throws IOException {
        return Files.createDirectory(
                dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** The library whose entries' names start as {@code name} does; null for none. */
    private static Library library(String name) {
        for (Library library : ImplementationClassLoader.LIBRARIES) {
            if (name.startsWith(library.prefix())) {
                return library;
            }
        }
        return null;
    }

    private static Set<String> jars() {
        return ImplementationClassLoader.LIBRARIES.stream().map(Library::jar).collect(Collectors.toSet());
    }

    private static byte[] packaged(JarFile agent, String jar) throws IOException {
        JarEntry entry = agent.getJarEntry(LIB + jar);
        assertNotNull(entry, LIB + jar + " in the agent jar");
        try (InputStream in = agent.getInputStream(entry)) {
            return in.readAllBytes();
        }
    }

    /** The library jars installed in a perfpin directory. */
    private static List<Path> installed(Path perfpinDir) throws IOException {
        Path agent = perfpinDir.resolve("agent");
        if (!Files.isDirectory(agent)) {
            return Collections.emptyList();
        }
        try (Stream<Path> files = Files.walk(agent)) {
            List<Path> found = files.filter(f -> jars().contains(f.getFileName().toString()))
                    .collect(Collectors.toList());
            assertFalse(found.stream().anyMatch(Files::isSymbolicLink), "no links: " + found);
            return found;
        }
    }
}
