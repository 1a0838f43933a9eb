package io.perfpin;

import io.perfpin.files.ContentName;
import io.perfpin.files.OwnedDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * Where perfpin keeps what processes share, per user: {@code -Dperfpin.dir} when set, otherwise
 * {@code ${XDG_RUNTIME_DIR:-/tmp}/perfpin-<user>}. Every part of it is an {@link OwnedDirectory}: private
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
        Path parent = runtime == null || runtime.isEmpty() ? Paths.get("/tmp") : Paths.get(runtime);
        return parent.resolve("perfpin-" + System.getProperty("user.name"));
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
