package io.perfpin.jvm;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The threads of a process as {@code /proc/<pid>/task} lists them. A JVM reports its threads by the TIDs
 * of its own pid namespace; perf_event_open takes TIDs of the caller's. They differ when the JVM runs in a
 * container and perfpin outside it.
 */
final class ProcTasks {
    private ProcTasks() {}

    /** The TIDs of the live threads of {@code pid}, as this process's /proc numbers them. */
    static Set<Integer> of(long pid) throws IOException {
        Set<Integer> tids = new HashSet<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                tids.add(Integer.parseInt(task.getFileName().toString()));
            }
        }
        return tids;
    }

    /** The TID in our pid namespace of each live thread of {@code pid}, by its TID in the process's. */
    static Map<Integer, Integer> byInnerTid(long pid) throws IOException {
        boolean nested = ProcStatus.ofProcess(pid).nestedPidSpace();
        Map<Integer, Integer> tids = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                int tid = Integer.parseInt(task.getFileName().toString());
                if (!nested) {
                    tids.put(tid, tid);
                    continue;
                }
                try {
                    tids.put((int) ProcStatus.ofTask(pid, tid).namespacePid(), tid);
                } catch (NoSuchFileException ended) {
                    // the thread ended since the listing: it has no TID to map
                }
            }
        }
        return tids;
    }
}
