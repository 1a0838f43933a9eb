package io.perfpin.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@link Timeline}s of chosen threads of a recording, read in a pass of their own: a recording may hold
 * thousands of threads, and only those shown over time are kept, each in at most {@link Timeline#MAX_POINTS}
 * points.
 */
public final class Timelines {
    private Timelines() {
    }

    /** @param threadKeys the threads to follow, by {@link ThreadRecord#threadKey()} */
    public static Map<String, Timeline> read(Path file, Set<String> threadKeys) throws IOException {
        Map<String, Timeline> timelines = new HashMap<>();
        Recording.read(file, record -> {
            if (threadKeys.contains(record.threadKey())) {
                timelines.computeIfAbsent(record.threadKey(), k -> new Timeline()).add(record);
            }
        });
        return timelines;
    }
}
