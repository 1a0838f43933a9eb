package io.perfpin.stats;

import io.perfpin.jvm.PidNamespace;
import io.perfpin.jvm.ThisProcess;
import java.util.Optional;

/**
 * The name of a JVM's stats file in its user's {@code jvms} directory: {@code <pid>.stats} for a JVM of the host's
 * pid namespace (or one that cannot tell its namespace), {@code <pid>.pidns-<inode>.stats} for a JVM of another,
 * the pid the one it sees for itself. JVMs of two pid namespaces that share a {@code /tmp} (as {@code unshare -p}
 * without a mount namespace does) then never share a name: two containers' JVMs are both pid 1.
 *
 * @param pid          the pid the JVM sees for itself
 * @param pidNamespace the inode of its pid namespace ({@link PidNamespace}); 0 when unknown
 */
public record StatsFileName(long pid, long pidNamespace) {
    private static final String SUFFIX = ".stats";
    private static final String NAMESPACE = ".pidns-";

    /** This process's. */
    public static StatsFileName ofThisProcess() {
        return new StatsFileName(ThisProcess.namespacePid(), ThisProcess.pidNamespace());
    }

    /** Whether the name says the host's pid namespace: no namespace in it. */
    public boolean onHost() {
        return pidNamespace == 0 || pidNamespace == PidNamespace.INITIAL;
    }

    public String name() {
        return onHost() ? pid + SUFFIX : pid + NAMESPACE + pidNamespace + SUFFIX;
    }

    /** The JVM a name in a {@code jvms} directory is of; empty for a name that no agent gives. */
    public static Optional<StatsFileName> parse(String name) {
        if (!name.endsWith(SUFFIX)) {
            return Optional.empty();
        }
        String stem = name.substring(0, name.length() - SUFFIX.length());
        int namespace = stem.indexOf(NAMESPACE);
        try {
            if (namespace < 0) {
                return Optional.of(new StatsFileName(Long.parseLong(stem), 0));
            }
            long inode = Long.parseLong(stem.substring(namespace + NAMESPACE.length()));
            return Optional.of(new StatsFileName(Long.parseLong(stem.substring(0, namespace)), inode));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
