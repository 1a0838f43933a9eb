package io.perfpin.jvm;

import io.perfpin.PerfpinDirectory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * Where the perfpin agent in a JVM keeps its stats file, found as that agent finds it ({@link PerfpinDirectory},
 * run in the JVM itself): {@code -Dperfpin.dir} when the JVM was started with it, else
 * {@code ${XDG_RUNTIME_DIR:-/tmp}/perfpin-<user>} from the JVM's own environment and user, then
 * {@code jvms/<pid>.stats} with the pid the JVM sees for itself. A viewer's own environment may differ (a login
 * shell and a service of the same user, root and another user's JVM), and a JVM in a container has its own
 * {@code /tmp} and pids: the file is then reached through {@code /proc/<pid>/root}.
 */
public final class AgentStatsFile {
    private AgentStatsFile() {
    }

    /** The stats file of JVM {@code pid}; where its environment cannot be read, the viewer's own place for it. */
    public static Path of(long pid) {
        ProcStatus status;
        try {
            status = ProcStatus.ofProcess(pid);
        } catch (IOException gone) {
            return PerfpinDirectory.statsFile(pid);
        }
        JvmOptions jvm = JvmOptions.of(pid);
        Path base = jvm.systemProperty(PerfpinDirectory.PROPERTY).filter(dir -> !dir.isEmpty()).map(Paths::get)
                .orElseGet(() -> Paths.get(jvm.environment("XDG_RUNTIME_DIR").filter(dir -> !dir.isEmpty())
                        .orElse("/tmp")).resolve("perfpin-" + jvm.systemProperty("user.name")
                        .orElseGet(() -> userName(pid, status.effectiveUid()))));
        Path file = base.resolve(PerfpinDirectory.JVMS).resolve(status.namespacePid() + ".stats");
        return ownMountNamespace(pid) ? file : Paths.get("/proc/" + pid + "/root").resolve(base.getRoot()
                .relativize(file));
    }

    /** The JVM's name for its user: its own /etc/passwd (a container's may differ), else ours for that uid. */
    private static String userName(long pid, int uid) {
        Optional<String> named = Optional.empty();
        try {
            named = Files.readAllLines(Paths.get("/proc/" + pid + "/root/etc/passwd")).stream()
                    .map(line -> line.split(":", -1))
                    .filter(fields -> fields.length > 2 && fields[2].equals(Integer.toString(uid)))
                    .map(fields -> fields[0]).findFirst();
        } catch (IOException | RuntimeException e) {
            // read below through our own user database
        }
        return named.orElseGet(() -> {
            try {
                return Files.getOwner(Paths.get("/proc/" + pid)).getName();
            } catch (IOException e) {
                return Integer.toString(uid);
            }
        });
    }

    private static boolean ownMountNamespace(long pid) {
        try {
            return Files.readSymbolicLink(Paths.get("/proc/self/ns/mnt"))
                    .equals(Files.readSymbolicLink(Paths.get("/proc/" + pid + "/ns/mnt")));
        } catch (IOException e) {
            return true; // cannot tell: the path as it reads here
        }
    }
}
