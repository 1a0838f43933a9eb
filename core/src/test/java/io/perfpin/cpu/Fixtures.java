package io.perfpin.cpu;

import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/** hwloc's Linux sysfs/procfs dumps beside the checkout ({@code -Dperfpin.fixtures}), unpacked on demand. */
final class Fixtures {
    private static final Map<String, Path> UNPACKED = new HashMap<>();

    private Fixtures() {}

    /**
     * Scratch space in memory where there is some: a dump is thousands of small files, which take
     * seconds to create on a disk and a fraction of one on tmpfs. Use as {@code @TempDir(factory = ...)}.
     */
    static final class InMemory implements TempDirFactory {
        @Override
        public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext extension)
                throws IOException {
            Path shm = Paths.get("/dev/shm");
            return Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "perfpin-fixtures")
                    : Files.createTempDirectory("perfpin-fixtures");
        }
    }

    static Path hwlocDir() {
        String dir = System.getProperty("perfpin.fixtures");
        if (dir == null) {
            throw new IllegalStateException(
                    "-Dperfpin.fixtures is not set: run through Maven, or point it at shared/fixtures");
        }
        Path hwloc = Paths.get(dir, "hwloc-linux");
        if (!Files.isDirectory(hwloc)) {
            throw new IllegalStateException("no fixtures at " + hwloc + " (-Dperfpin.fixtures=" + dir + ")");
        }
        return hwloc;
    }

    /** The root of a dump unpacked under {@code scratch} once per JVM, shared by the tests that only read it. */
    static synchronized Path root(String name, Path scratch) throws IOException, InterruptedException {
        Path known = UNPACKED.get(name);
        if (known == null || !Files.isDirectory(known)) {
            known = unpack(name, scratch.resolve(name));
            UNPACKED.put(name, known);
        }
        return known;
    }

    /**
     * Unpacks a dump into {@code target} (a private copy a test may change) and returns its root, the directory
     * holding {@code sys/}: tarballs hold one top directory, not always named like the tarball.
     */
    static Path unpack(String name, Path target) throws IOException, InterruptedException {
        Files.createDirectories(target);
        // Caches, PCI devices and device trees are most of the files and none of the topology.
        TestJvm.program(
                        "tar",
                        "xjf",
                        hwlocDir().resolve(name + ".tar.bz2").toString(),
                        "-C",
                        target.toString(),
                        "--exclude=cache",
                        "--exclude=device-tree",
                        "--exclude=pci*",
                        "--exclude=bus",
                        "--exclude=class")
                .mergeStderr()
                .run(Duration.ofSeconds(120));
        try (Stream<Path> dirs = Files.walk(target, 2)) {
            return dirs.filter(dir -> Files.isDirectory(dir.resolve("sys/devices/system/cpu")))
                    .findFirst()
                    .orElseThrow(() -> new IOException(name + ".tar.bz2 has no sys/devices/system/cpu"));
        }
    }
}
