package io.perfpin.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A copy of bytes packaged in a jar, for what the JVM takes only by path (the JNI library, the agent's library jars):
 * written into a private (0700) directory of this user's ({@link OwnedDirectory}) under a name that carries the
 * content's length and CRC, {@code <prefix>-<length>-<crc32><suffix>} ({@link ContentName}). A copy already there is
 * used only when its whole content is the packaged one's; a name that holds other bytes is left as it is. The
 * directories, in order: {@code -Dperfpin.extract.dir} alone when it is set, else
 * {@code <java.io.tmpdir>/perfpin-<user>}, then {@code ~/.cache/perfpin} (a temporary directory that another user
 * could change, or one mounted noexec, makes the first fail, and the second then serves). A uid with no name has its
 * number there, and one with no home no second directory ({@link EffectiveUser#name}, {@link EffectiveUser#home}).
 */
public final class PackagedCopy {
    public static final String EXTRACT_DIR_PROPERTY = "perfpin.extract.dir";

    private PackagedCopy() {}

    /** Where copies go, in the order to try them. */
    public static List<Path> directories() {
        List<Path> dirs = new ArrayList<>();
        String configured = System.getProperty(EXTRACT_DIR_PROPERTY);
        if (configured != null) {
            dirs.add(Paths.get(configured));
            return dirs;
        }
        dirs.add(Paths.get(System.getProperty("java.io.tmpdir"), "perfpin-" + EffectiveUser.name()));
        // no lambda: linking the first one costs the agent's start, which the application waits for, a millisecond
        Optional<Path> home = EffectiveUser.home();
        if (home.isPresent()) {
            dirs.add(home.get().resolve(".cache").resolve("perfpin"));
        }
        return dirs;
    }

    /** The name of the copy of {@code content} that every process shares. */
    public static String name(String prefix, byte[] content, String suffix) {
        return prefix + "-" + ContentName.of(content) + suffix;
    }

    /**
     * A verified copy of {@code content} in {@code dir}: the shared one, or, where that name holds other bytes, one of
     * its own, for a caller that removes it once it is loaded (a loaded library outlives its file).
     */
    public static Path in(Path dir, String prefix, byte[] content, String suffix) throws IOException {
        OwnedDirectory owned = OwnedDirectory.open(dir);
        String name = name(prefix, content, suffix);
        Optional<Path> installed = owned.install(name, content);
        return installed.isPresent() ? installed.get() : owned.installUnique(name, suffix, content);
    }

    /**
     * The shared copy of {@code content} in the first of the {@link #directories} that has or takes it; never one of
     * its own, which, kept open while the JVM runs, could not be removed and would pile up. Where the shared name holds
     * other bytes, the next directory is tried, and the error names the file to remove.
     *
     * @throws IOException naming each directory and why it did not serve
     */
    public static Path anywhere(String prefix, byte[] content, String suffix) throws IOException {
        List<String> attempts = new ArrayList<>();
        String name = name(prefix, content, suffix);
        for (Path dir : directories()) {
            try {
                OwnedDirectory owned = OwnedDirectory.open(dir);
                Optional<Path> installed = owned.install(name, content);
                if (installed.isPresent()) {
                    return installed.get();
                }
                attempts.add(owned.resolve(name) + " holds other bytes than this perfpin's: remove it, and perfpin"
                        + " writes it again");
            } catch (IOException | UncheckedIOException e) {
                attempts.add(dir + ": " + e.getMessage());
            }
        }
        throw new IOException("no private directory took it (" + String.join("; ", attempts) + "); set -D"
                + EXTRACT_DIR_PROPERTY + "=<a directory of this user's that only this user may write>");
    }
}
