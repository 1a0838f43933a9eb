package io.perfpin.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;

/**
 * The perf_event descriptors a process holds. Tests count these, never every descriptor: the JVM opens and
 * closes descriptors of its own (jar files, the JIT's, Surefire's) at any moment, which made a plain count of
 * /proc/self/fd differ by one now and then.
 */
public final class PerfEventDescriptors {
    private static final long SETTLED_MILLIS = 200;

    private PerfEventDescriptors() {}

    public static long ofThisProcess() {
        return of("self");
    }

    public static long of(long pid) {
        return of(Long.toString(pid));
    }

    /**
     * The agent's own, read once its start is over: no {@code perfpin-kernel} thread left (it holds a counter while the
     * kernel switches its perf hooks on, and grows the table) and the same count twice, {@value #SETTLED_MILLIS} ms
     * apart, within {@link TestJvm#DEADLINE}.
     */
    public static long settled(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TestJvm.DEADLINE.toNanos();
        long last = -1;
        while (System.nanoTime() < deadline) {
            long now = of(pid);
            if (now == last && !hasThreadNamed(pid, "perfpin-kernel")) {
                return now;
            }
            last = now;
            Thread.sleep(SETTLED_MILLIS);
        }
        throw new AssertionError("the perf_event descriptors of " + pid + " did not settle in "
                + TimeUnit.NANOSECONDS.toSeconds(TestJvm.DEADLINE.toNanos()) + " s: " + of(pid));
    }

    private static long of(String pid) {
        long count = 0;
        try (var fds = Files.list(Paths.get("/proc", pid, "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    count += Files.readSymbolicLink(fd).toString().equals("anon_inode:[perf_event]") ? 1 : 0;
                } catch (IOException e) {
                    // closed while we looked, like the directory stream's own descriptor
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return count;
    }

    /** Whether a live thread of the process has this kernel name ({@code comm}, cut at 15 bytes). */
    private static boolean hasThreadNamed(long pid, String name) {
        try (var tasks = Files.list(Paths.get("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals(name)) {
                        return true;
                    }
                } catch (IOException e) {
                    // ended while we looked
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return false;
    }
}
