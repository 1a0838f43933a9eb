package io.perfpin.jvm;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * When a thread started: field 22 ({@code starttime}) of {@code /proc/<pid>/task/<tid>/stat}, in clock
 * ticks after boot. The kernel reuses TIDs, so a TID names the thread that had it earlier only while the
 * start time is the same.
 */
public final class ThreadStartTime {
    private static final int START_TIME = 22;

    private ThreadStartTime() {}

    /** Empty when the thread is gone or its stat file cannot be read. */
    public static OptionalLong of(long pid, int tid) {
        return number(TaskStat.field(pid, tid, START_TIME));
    }

    static OptionalLong parse(String stat) {
        return number(TaskStat.field(stat, START_TIME));
    }

    private static OptionalLong number(Optional<String> field) {
        try {
            return field.isPresent() ? OptionalLong.of(Long.parseLong(field.get())) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
