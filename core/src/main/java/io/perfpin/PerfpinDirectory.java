package io.perfpin;

import io.perfpin.files.ContentName;
import io.perfpin.files.EffectiveUser;
import io.perfpin.files.OwnedDirectory;
import io.perfpin.files.TrustedPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * Where perfpin keeps what processes share, per user: {@code -Dperfpin.dir} when set, otherwise
 * {@code ${XDG_RUNTIME_DIR:-/tmp}/perfpin-<user>} ({@link EffectiveUser#name}: the uid where the user has no name),
 * or, with no {@code XDG_RUNTIME_DIR}, {@code ~/.cache/perfpin} where another user made that directory in
 * {@code /tmp} first (anyone may) or {@code /tmp} is not to be trusted (the host's in a user namespace). Every part of it is an {@link OwnedDirectory}: private
 * (0700) to its user, opened without following links, refused (never changed) when it is anything else.
 *
 * <pre>
 * perfpin-&lt;user&gt;/cpus/cpu-&lt;n&gt;.lock             CPU reservations (file locks, freed when the holder dies)
 * perfpin-&lt;user&gt;/jvms/&lt;pid&gt;.stats              the stats file of each JVM that runs the agent
 * perfpin-&lt;user&gt;/runs/run-&lt;millis&gt;.jsonl        what perfpin run recorded when no --record was given
 * perfpin-&lt;user&gt;/agent/&lt;length&gt;-&lt;crc&gt;/perfpin-agent.jar   the agent jar that run and attach load
 * perfpin-&lt;user&gt;/agent/&lt;jar's&gt;-&lt;library's&gt;/   the agent jar and libperfpin-agent.so, by which run starts it
 * perfpin-&lt;user&gt;/agent/&lt;length&gt;-&lt;crc&gt;/perfpin-hooks.jar   the agent's hooks, where the C library is not
 * </pre>
 */
public final class PerfpinDirectory {
    public static final String PROPERTY = "perfpin.dir";
    public static final String CPUS = "cpus";
    public static final String JVMS = "jvms";
    public static final String RUNS = "runs";
    public static final String AGENT = "agent";

    private PerfpinDirectory() {}

    /** The path, for readers; {@link #open} for anything that creates or loads. */
    public static Path base() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isEmpty()) {
            return Paths.get(configured);
        }
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        boolean chosen = runtime != null && !runtime.isEmpty();
        Path shared = (chosen ? Paths.get(runtime) : Paths.get("/tmp")).resolve("perfpin-" + EffectiveUser.name());
        Optional<Path> home =
                EffectiveUser.home().map(dir -> dir.resolve(".cache").resolve("perfpin"));
        // Only the shared /tmp: a directory the user chose is refused where it is wrong, for the user to look at.
        return home.isPresent() && !chosen && (squatted(shared) || !trustedParent(shared)) ? home.get() : shared;
    }

    /**
     * Whether another user made something of theirs at {@code dir} first, a directory, a link, a file or a FIFO:
     * anyone may, in a shared {@code /tmp}, and perfpin neither uses nor changes it, nor lets it stop this user's
     * perfpin. Something of this user's there that is no directory of theirs is refused where it is opened, as what
     * the user must look at.
     */
    private static boolean squatted(Path dir) {
        try {
            return (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS) != EffectiveUser.uid();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Whether the default {@code /tmp} is trusted: not so the host's in a user namespace ({@link TrustedPath}). */
    private static boolean trustedParent(Path dir) {
        try {
            TrustedPath.verify(dir.getParent());
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** One part of this user's perfpin directory ({@link #CPUS}, {@link #JVMS}, ...), created private when missing. */
    public static OwnedDirectory open(String part) throws IOException {
        return OwnedDirectory.open(base()).directory(part);
    }

    /**
     * A jar of perfpin's, {@code content}, installed as {@code agent/<length>-<crc>/<name>}, for what takes a jar only
     * by path: a copy already there is used only when its every byte is {@code content}
     * ({@link OwnedDirectory#install}).
     *
     * @throws IOException also when that path holds other bytes, which are left as they are
     */
    public static Path installedJar(String name, byte[] content) throws IOException {
        return installed(open(AGENT).directory(ContentName.of(content)), name, content);
    }

    /**
     * The agent jar and the library that starts the jar beside it, installed together as {@link #installedJar}
     * installs a jar alone, in {@code agent/<the jar's length>-<crc>-<the library's>/}: one pair to a directory,
     * whichever of the two a build changed. Returns the library's path.
     */
    public static Path installedPair(String jarName, byte[] jar, String libraryName, byte[] library)
            throws IOException {
        OwnedDirectory version = open(AGENT).directory(ContentName.of(jar) + "-" + ContentName.of(library));
        installed(version, jarName, jar);
        return installed(version, libraryName, library);
    }

    private static Path installed(OwnedDirectory version, String name, byte[] content) throws IOException {
        Optional<Path> installed = version.install(name, content);
        if (installed.isEmpty()) {
            throw new IOException(version.resolve(name)
                    + " holds other bytes than this perfpin's: remove it, and perfpin writes it again");
        }
        return installed.get();
    }

    /** CPU reservations. */
    public static Path cpus() {
        return base().resolve(CPUS);
    }

    /** The stats files of JVMs running the agent. */
    public static Path jvms() {
        return base().resolve(JVMS);
    }

    public static Path statsFile(long pid) {
        return jvms().resolve(pid + ".stats");
    }
}
