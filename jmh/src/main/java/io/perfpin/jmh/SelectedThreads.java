package io.perfpin.jmh;

import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.JavaThreads;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.ThreadPattern;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The threads of this JVM that the profiler counts, by TID, with their names: the Java threads whose whole name a
 * regex matches (JMH's workers by default), or, for {@code threads=all}, every thread of the process as
 * {@code /proc/self/task} lists it, as perfnorm counts the whole JVM: the Java threads by their Java names, the
 * JVM's own (GC workers, which are no Java threads) by the kernel's name for them.
 */
final class SelectedThreads {
    private SelectedThreads() {}

    /** @param pattern null for every thread */
    static Map<Integer, String> of(Syscalls syscalls, ThreadPattern pattern) throws AttachException, IOException {
        Map<Integer, String> javaNames = new LinkedHashMap<>();
        JavaThreads.live(syscalls).forEach((thread, tid) -> javaNames.put(tid, thread.getName()));
        if (pattern != null) {
            javaNames.values().removeIf(name -> !pattern.matches(name));
            return javaNames;
        }
        Map<Integer, String> all = new LinkedHashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                int tid = Integer.parseInt(task.getFileName().toString());
                String name = javaNames.get(tid);
                try {
                    all.put(
                            tid,
                            name != null
                                    ? name
                                    : Files.readString(task.resolve("comm")).strip());
                } catch (NoSuchFileException ended) {
                    // ended since the listing: nothing to count
                }
            }
        }
        return all;
    }
}
