package io.perfpin.counter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The perf_event descriptors a process holds. Tests count these, never every descriptor: the JVM opens and
 * closes descriptors of its own (jar files, the JIT's, Surefire's) at any moment, which made a plain count of
 * /proc/self/fd differ by one now and then.
 */
public final class PerfEventDescriptors {
    private PerfEventDescriptors() {}

    public static long ofThisProcess() throws IOException {
        return of("self");
    }

    public static long of(String pid) throws IOException {
        long count = 0;
        try (var fds = Files.list(Paths.get("/proc", pid, "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    count += Files.readSymbolicLink(fd).toString().equals("anon_inode:[perf_event]") ? 1 : 0;
                } catch (IOException e) {
                    // closed while we looked, like the directory stream's own descriptor
                }
            }
        }
        return count;
    }
}
