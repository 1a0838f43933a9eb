package io.perfpin;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Where perfpin keeps what processes share, per user: {@code -Dperfpin.dir} when set, otherwise
 * {@code ${XDG_RUNTIME_DIR:-/tmp}/perfpin-<user>}. Every part of it is created private (0700) by its user.
 *
 * <pre>
 * perfpin-&lt;user&gt;/cpus/cpu-&lt;n&gt;.lock   CPU reservations (file locks, freed when the holder dies)
 * perfpin-&lt;user&gt;/jvms/&lt;pid&gt;.stats    the stats file of each JVM that runs the agent
 * </pre>
 */
public final class PerfpinDirectory {
    public static final String PROPERTY = "perfpin.dir";

    private PerfpinDirectory() {
    }

    public static Path base() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isEmpty()) {
            return Paths.get(configured);
        }
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        Path parent = runtime == null || runtime.isEmpty() ? Paths.get("/tmp") : Paths.get(runtime);
        return parent.resolve("perfpin-" + System.getProperty("user.name"));
    }

    /** CPU reservations. */
    public static Path cpus() {
        return base().resolve("cpus");
    }

    /** The stats files of JVMs running the agent. */
    public static Path jvms() {
        return base().resolve("jvms");
    }

    public static Path statsFile(long pid) {
        return jvms().resolve(pid + ".stats");
    }
}
