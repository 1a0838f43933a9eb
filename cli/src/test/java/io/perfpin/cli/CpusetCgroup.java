package io.perfpin.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * A cpuset cgroup of a test's own, limited to some CPUs, for a process started in it: a child of the cgroup v1
 * cpuset hierarchy where one is mounted, else of the cgroup v2 root where its {@code cgroup.subtree_control}
 * already gives children the cpuset controller. Tests that need one are skipped, with the reason, where the
 * machine allows none (not root, no cpuset controller, or a v2 root that would have to be changed for it).
 */
final class CpusetCgroup implements AutoCloseable {
    private static final long REMOVE_NANOS = 10_000_000_000L;

    private final Path dir;

    private CpusetCgroup(Path dir) {
        this.dir = dir;
    }

    /** A new cgroup whose tasks may run on {@code cpus} only (Linux list syntax). */
    static CpusetCgroup create(String cpus) throws IOException {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can create a cgroup here");
        Path parent = hierarchy().orElse(null);
        assumeTrue(
                parent != null,
                "no cpuset cgroup hierarchy to create a child in: neither a cgroup v1 cpuset"
                        + " mount nor a cgroup v2 root whose cgroup.subtree_control has cpuset");
        Path dir = parent.resolve(
                "perfpin-test-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try {
            Files.createDirectory(dir);
        } catch (IOException e) {
            assumeTrue(false, "cannot create a cgroup under " + parent + ": " + e);
        }
        CpusetCgroup cgroup = new CpusetCgroup(dir);
        try {
            // A v1 cpuset takes no task until it has CPUs and memory nodes of its own.
            Files.writeString(
                    dir.resolve("cpuset.mems"),
                    Files.readAllLines(parent.resolve("cpuset.mems")).get(0));
            Files.writeString(dir.resolve("cpuset.cpus"), cpus);
        } catch (IOException | RuntimeException e) {
            cgroup.close();
            throw e;
        }
        return cgroup;
    }

    /** A launcher for {@link ChildJvm#startUnder}: a shell that moves itself into this cgroup, then execs java. */
    List<String> launcher() {
        return List.of("sh", "-ec", "echo $$ > '" + dir.resolve("cgroup.procs") + "'; exec \"$@\"", "sh");
    }

    private static Optional<Path> hierarchy() throws IOException {
        Path v2 = null;
        for (String line : Files.readAllLines(Paths.get("/proc/self/mounts"))) {
            String[] mount = line.split(" ");
            if (mount.length < 4) {
                continue;
            }
            if (mount[2].equals("cgroup") && List.of(mount[3].split(",")).contains("cpuset")) {
                return Optional.of(Paths.get(mount[1]));
            }
            if (mount[2].equals("cgroup2") && v2 == null) {
                Path root = Paths.get(mount[1]);
                Path control = root.resolve("cgroup.subtree_control");
                if (Files.isReadable(control)
                        && String.join(" ", Files.readAllLines(control)).contains("cpuset")) {
                    v2 = root;
                }
            }
        }
        return Optional.ofNullable(v2);
    }

    /** Removes it, once the processes started in it have ended (call after closing them). */
    @Override
    public void close() throws IOException {
        long deadline = System.nanoTime() + REMOVE_NANOS;
        while (true) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException busy) {
                // a task that just exited may still be leaving it
                if (System.nanoTime() > deadline) {
                    throw busy;
                }
                LockSupport.parkNanos(10_000_000L);
            }
        }
    }
}
