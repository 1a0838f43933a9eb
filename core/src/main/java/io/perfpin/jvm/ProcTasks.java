package io.perfpin.jvm;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The threads of a process as {@code /proc/<pid>/task} lists them. A JVM reports its threads by the TIDs
 * of its own pid namespace; perf_event_open takes TIDs of the caller's. They differ when the JVM runs in a
 * container and perfpin outside it.
 */
final class ProcTasks {
    private ProcTasks() {
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
