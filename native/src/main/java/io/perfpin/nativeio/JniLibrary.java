package io.perfpin.nativeio;

import io.perfpin.files.ContentName;
import io.perfpin.files.OwnedDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds and loads {@code libperfpin.so}, trying in order:
 * <ol>
 *   <li>the file named by {@code -Dperfpin.library=/path/libperfpin.so};</li>
 *   <li>the copy packaged in the jar under {@code native/<platform>/}, extracted under a name that carries
 *       its content's length and CRC into a private (0700) directory of this user's ({@link OwnedDirectory}):
 *       {@code -Dperfpin.extract.dir} when set, else {@code <java.io.tmpdir>/perfpin-<user>}, else
 *       {@code ~/.cache/perfpin} (a noexec temporary directory, or one another user could change, makes the
 *       first fail, the second then serves). A copy already there is loaded only when its whole content is the
 *       packaged library's; otherwise a fresh copy is written beside it, loaded, and removed;</li>
 *   <li>{@code System.loadLibrary("perfpin")}, which searches {@code java.library.path}.</li>
 * </ol>
 * When all fail, the error names every attempt and what to do.
 */
public final class JniLibrary {
    public static final String LIBRARY_PROPERTY = "perfpin.library";
    public static final String EXTRACT_DIR_PROPERTY = "perfpin.extract.dir";

    private static boolean loaded;

    private JniLibrary() {}

    /** The jar folder of this machine's build, such as {@code linux-x86_64}. */
    public static String platform() {
        String arch = System.getProperty("os.arch");
        if ("amd64".equals(arch) || "x86_64".equals(arch)) {
            arch = "x86_64";
        }
        return System.getProperty("os.name").toLowerCase().replace(' ', '_') + "-" + arch;
    }

    static String resourceName() {
        return "native/" + platform() + "/libperfpin.so";
    }

    public static synchronized void load() {
        if (loaded) {
            return;
        }
        List<String> attempts = new ArrayList<>();
        String explicit = System.getProperty(LIBRARY_PROPERTY);
        if (explicit != null) {
            if (tryLoad(Paths.get(explicit), attempts)) {
                return;
            }
            // An explicit path that fails is a configuration error: do not silently load another copy.
            throw new UnsatisfiedLinkError(
                    "perfpin: could not load -D" + LIBRARY_PROPERTY + "=" + explicit + ": " + attempts.get(0));
        }
        byte[] packaged = readPackaged();
        if (packaged == null) {
            attempts.add("no " + resourceName() + " in the jar (built without a C compiler?"
                    + " install gcc and make, then rebuild)");
        } else {
            for (Path dir : extractDirectories()) {
                Path file;
                try {
                    file = extract(packaged, dir);
                } catch (IOException | UncheckedIOException e) {
                    attempts.add("extracting to " + dir + ": " + e.getMessage());
                    continue;
                }
                boolean done = tryLoad(file, attempts);
                if (!file.getFileName().toString().equals(libraryName(packaged))) {
                    deleteLoadedCopy(file);
                }
                if (done) {
                    return;
                }
            }
        }
        try {
            System.loadLibrary("perfpin");
            loaded = true;
            return;
        } catch (UnsatisfiedLinkError e) {
            attempts.add("System.loadLibrary(\"perfpin\"): " + e.getMessage());
        }
        throw new UnsatisfiedLinkError("perfpin: could not load libperfpin.so; tried: " + String.join("; ", attempts)
                + ". Fix: set -D" + EXTRACT_DIR_PROPERTY + "=<a private directory on a filesystem mounted"
                + " without noexec>, or -D" + LIBRARY_PROPERTY + "=<path to libperfpin.so>");
    }

    private static boolean tryLoad(Path file, List<String> attempts) {
        try {
            System.load(file.toAbsolutePath().toString());
            loaded = true;
            return true;
        } catch (UnsatisfiedLinkError e) {
            String message = String.valueOf(e.getMessage());
            if (message.contains("failed to map segment")) {
                message += " (the filesystem of " + file.getParent() + " is mounted noexec)";
            }
            attempts.add(file + ": " + message);
            return false;
        }
    }

    private static List<Path> extractDirectories() {
        List<Path> dirs = new ArrayList<>();
        String configured = System.getProperty(EXTRACT_DIR_PROPERTY);
        if (configured != null) {
            dirs.add(Paths.get(configured));
            return dirs;
        }
        dirs.add(Paths.get(System.getProperty("java.io.tmpdir"), "perfpin-" + System.getProperty("user.name")));
        dirs.add(Paths.get(System.getProperty("user.home"), ".cache", "perfpin"));
        return dirs;
    }

    private static byte[] readPackaged() {
        try (InputStream in = JniLibrary.class.getClassLoader() == null
                ? ClassLoader.getSystemResourceAsStream(resourceName())
                : JniLibrary.class.getClassLoader().getResourceAsStream(resourceName())) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * A verified copy of the library in {@code dir}: {@code libperfpin-<length>-<crc32c>.so}, written once and
     * then reused after a byte-for-byte comparison; a fresh copy of its own when that name holds other bytes.
     */
    static Path extract(byte[] library, Path dir) throws IOException {
        OwnedDirectory owned = OwnedDirectory.open(dir);
        String name = libraryName(library);
        Optional<Path> installed = owned.install(name, library);
        return installed.isPresent() ? installed.get() : owned.installUnique(name, ".so", library);
    }

    static String libraryName(byte[] library) {
        return "libperfpin-" + ContentName.of(library) + ".so";
    }

    /** The mapping outlives the file: a one-off copy goes as soon as it is loaded, or failed to load. */
    private static void deleteLoadedCopy(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // left in a private directory of ours, harmless
        }
    }
}
