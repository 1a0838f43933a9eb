package io.perfpin.nativeio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.files.PackagedCopy;
import io.perfpin.testkit.ClassPath;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How an application's JVM chooses a backend, and what it is told when one cannot load: each case runs
 * {@link BackendProbe} in a child JVM whose class path and properties make that case real.
 */
class BackendChoiceTest {
    private static final Path CLASSES = ClassPath.locationOf(JniLibrary.class);
    private static final Path TEST_CLASSES = ClassPath.locationOf(BackendProbe.class);
    private static final Path JNA = ClassPath.locationOf(com.sun.jna.Native.class);
    private static final Path JFFI = ClassPath.locationOf(com.kenai.jffi.Invoker.class);
    private static final Path JFFI_NATIVE = ClassPath.locationOf("jni/" + jffiPlatform() + "/libjffi-1.2.so");
    private static final boolean JNI_BUILT = Files.exists(CLASSES.resolve(JniLibrary.resourceName()));
    private static final String NOT_BUILT = JniLibrary.resourceName() + " was not built (no C compiler?)";

    @TempDir
    Path temporary;

    @Test
    void choosesJniFirst() throws Exception {
        assumeTrue(JNI_BUILT, NOT_BUILT);
        List<String> lines = everything().run();
        assertEquals("chosen=JNI", lines.get(0));
        assertEquals(List.of(), lines("failure=", lines));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void loadsTheForcedBackend(Backend backend) throws Exception {
        assumeTrue(backend != Backend.JNI || JNI_BUILT, NOT_BUILT);
        List<String> lines = everything()
                .property(Backends.BACKEND_PROPERTY, backend.name().toLowerCase())
                .run();
        assertEquals("chosen=" + backend, lines.get(0), lines::toString);
    }

    @Test
    void refusesAnUnknownBackendName() throws Exception {
        String error = only(
                "error=",
                everything().property(Backends.BACKEND_PROPERTY, "jnii").run());
        assertEquals("-Dperfpin.backend=jnii names no backend; allowed: jni, jffi, jna", error);
    }

    @Test
    void namesAnExplicitLibraryThatCannotLoad() throws Exception {
        String error = only(
                "error=",
                everything()
                        .property(Backends.BACKEND_PROPERTY, "jni")
                        .property(JniLibrary.LIBRARY_PROPERTY, "/nonexistent/libperfpin.so")
                        .run());
        assertTrue(
                error.startsWith("JNI: perfpin: could not load -Dperfpin.library=/nonexistent/libperfpin.so: "
                        + "/nonexistent/libperfpin.so: "),
                error);
    }

    /** A directory under a regular file cannot be created: JNI fails, jffi serves, and the reason says what to do. */
    @Test
    void fallsBackWhenExtractionFailsAndSaysWhatToDo() throws Exception {
        assumeTrue(JNI_BUILT, NOT_BUILT);
        Path file = Files.writeString(temporary.resolve("a-file"), "");
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
        Path extractDir = file.resolve("perfpin");
        List<String> lines = everything()
                .property(PackagedCopy.EXTRACT_DIR_PROPERTY, extractDir.toString())
                .run();
        assertEquals("chosen=JFFI", lines.get(0));
        String failure = only("failure=", lines);
        assertTrue(
                failure.startsWith("JNI: perfpin: could not load libperfpin.so; tried: extracting to " + extractDir
                        + ": " + file + " is a regular file, not a directory"),
                failure);
        assertTrue(
                failure.contains(". Fix: set -Dperfpin.extract.dir=<a private directory on a filesystem mounted"
                        + " without noexec>, or -Dperfpin.library=<path to libperfpin.so>"),
                failure);
        assertEquals(permissions, Files.getPosixFilePermissions(file), "the file in the way is left as it was");
    }

    @Test
    void saysWhenTheLibraryWasBuiltWithoutACCompiler() throws Exception {
        Path jar = jar(temporary.resolve("perfpin-native-without-library.jar"), name -> !name.startsWith("native/"));
        String error = only(
                "error=",
                probe(jar, TEST_CLASSES)
                        .property(Backends.BACKEND_PROPERTY, "jni")
                        .run());
        assertTrue(
                error.startsWith("JNI: perfpin: could not load libperfpin.so; tried: no " + JniLibrary.resourceName()
                        + " in the jar (built without a C compiler? install gcc and make, then rebuild)"),
                error);
    }

    @Test
    void loadsTheLibraryPackagedInAJar() throws Exception {
        assumeTrue(JNI_BUILT, NOT_BUILT);
        Path jar = jar(temporary.resolve("perfpin-native.jar"), name -> true);
        Path extractDir = temporary.resolve("extracted");
        List<String> lines = probe(jar, TEST_CLASSES)
                .property(PackagedCopy.EXTRACT_DIR_PROPERTY, extractDir.toString())
                .run();
        assertEquals("chosen=JNI", lines.get(0), lines::toString);
        assertEquals(PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(extractDir));
        try (Stream<Path> files = Files.list(extractDir)) {
            List<Path> libraries = files.collect(Collectors.toList());
            assertEquals(1, libraries.size(), libraries::toString);
            assertTrue(
                    libraries.get(0).getFileName().toString().matches("libperfpin-[0-9a-f]+-[0-9a-f]{8}\\.so"),
                    libraries::toString);
            assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(libraries.get(0)));
        }
    }

    @Test
    void namesJnaWhenItIsNotOnTheClassPath() throws Exception {
        String error = only(
                "error=",
                probe(CLASSES, TEST_CLASSES, JFFI, JFFI_NATIVE)
                        .property(Backends.BACKEND_PROPERTY, "jna")
                        .run());
        assertTrue(
                error.matches("JNA: not on the class path \\(no class com\\.sun\\.jna\\.\\w+\\):"
                        + " add net\\.java\\.dev\\.jna:jna"),
                error);
    }

    @Test
    void namesJffiWhenItIsNotOnTheClassPath() throws Exception {
        String error = only(
                "error=",
                probe(CLASSES, TEST_CLASSES, JNA)
                        .property(Backends.BACKEND_PROPERTY, "jffi")
                        .run());
        assertTrue(
                error.matches("JFFI: not on the class path \\(no class com\\.kenai\\.jffi\\.\\w+\\):"
                        + " add com\\.github\\.jnr:jffi and com\\.github\\.jnr:jffi:native"),
                error);
    }

    /** jffi's message (a whole stack trace) is cut to its first line; the artifacts it needs are named. */
    @Test
    void reportsJffiWithoutItsNativeLibraryInOneLine() throws Exception {
        List<String> lines = probe(CLASSES, TEST_CLASSES, JFFI)
                .property(Backends.BACKEND_PROPERTY, "jffi")
                .run();
        assertEquals(1, lines.size(), lines::toString);
        String error = only("error=", lines);
        assertTrue(
                error.startsWith("JFFI: java.lang.UnsatisfiedLinkError: could not locate stub library in jar file."),
                error);
        assertTrue(
                error.endsWith(" (it needs com.github.jnr:jffi and com.github.jnr:jffi:native for this platform)"),
                error);
    }

    private static TestJvm.Builder everything() {
        return probe(CLASSES, TEST_CLASSES, JFFI, JFFI_NATIVE, JNA);
    }

    /** {@link BackendProbe} in a JVM with this class path and no other. */
    private static TestJvm.Builder probe(Path... classPath) {
        return TestJvm.main(BackendProbe.class)
                .classPath(Stream.of(classPath).map(Path::toString).collect(Collectors.joining(":")));
    }

    private static List<String> lines(String prefix, List<String> lines) {
        return lines.stream()
                .filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()))
                .collect(Collectors.toList());
    }

    private static String only(String prefix, List<String> lines) {
        List<String> matching = lines(prefix, lines);
        assertEquals(1, matching.size(), () -> "one " + prefix + " line in " + lines);
        return matching.get(0);
    }

    /** perfpin's classes and resources, as the jar the build makes, keeping the entries {@code include} accepts. */
    private static Path jar(Path jar, Predicate<String> include) throws IOException {
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file);
                Stream<Path> tree = Files.walk(CLASSES)) {
            for (Path path : (Iterable<Path>) tree.filter(Files::isRegularFile)::iterator) {
                String name = CLASSES.relativize(path).toString();
                if (include.test(name)) {
                    out.putNextEntry(new JarEntry(name));
                    Files.copy(path, out);
                    out.closeEntry();
                }
            }
        }
        return jar;
    }

    private static String jffiPlatform() {
        String arch = System.getProperty("os.arch");
        return ("amd64".equals(arch) ? "x86_64" : arch) + "-Linux";
    }
}
