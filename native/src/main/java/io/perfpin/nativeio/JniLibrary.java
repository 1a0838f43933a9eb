package io.perfpin.nativeio;

import io.perfpin.files.PackagedCopy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds and loads {@code libperfpin.so}, trying in order:
 * <ol>
 *   <li>the file named by {@code -Dperfpin.library=/path/libperfpin.so};</li>
 *   <li>the copy packaged in the jar under {@code native/<platform>/}, copied into a private directory of this
 *       user's ({@link PackagedCopy}), the next one where the copy cannot be loaded there (a noexec mount); a copy
 *       of its own, written where the shared name holds other bytes, is removed once loaded;</li>
 *   <li>{@code System.loadLibrary("perfpin")}, which searches {@code java.library.path}.</li>
 * </ol>
 * When all fail, the error names every attempt and what to do.
 */
public final class JniLibrary {
    public static final String LIBRARY_PROPERTY = "perfpin.library";
    private static final String PREFIX = "libperfpin";
    private static final String SUFFIX = ".so";

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
            for (Path dir : PackagedCopy.directories()) {
                Path file;
                try {
                    file = PackagedCopy.in(dir, PREFIX, packaged, SUFFIX);
                } catch (IOException | UncheckedIOException e) {
                    attempts.add("extracting to " + dir + ": " + e.getMessage());
                    continue;
                }
                boolean done = tryLoad(file, attempts);
                if (!file.getFileName().toString().equals(PackagedCopy.name(PREFIX, packaged, SUFFIX))) {
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
                + ". Fix: set -D" + PackagedCopy.EXTRACT_DIR_PROPERTY + "=<a private directory on a filesystem mounted"
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

    private static byte[] readPackaged() {
        try (InputStream in = JniLibrary.class.getClassLoader() == null
                ? ClassLoader.getSystemResourceAsStream(resourceName())
                : JniLibrary.class.getClassLoader().getResourceAsStream(resourceName())) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
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
