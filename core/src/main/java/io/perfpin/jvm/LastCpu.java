package io.perfpin.jvm;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * The CPU a thread last ran on, field 39 ({@code processor}) of {@code /proc/<pid>/task/<tid>/stat}. Viewers
 * read it themselves at display time, so the counted JVM pays nothing for it.
 */
public final class LastCpu {
    private static final int PROCESSOR = 39;

    private LastCpu() {}

    /** Empty when the thread is gone or its stat file cannot be read. */
    public static OptionalInt of(long pid, int tid) {
        return number(TaskStat.field(pid, tid, PROCESSOR));
    }

    static OptionalInt parse(String stat) {
        return number(TaskStat.field(stat, PROCESSOR));
    }

    private static OptionalInt number(Optional<String> field) {
        try {
            return field.isPresent() ? OptionalInt.of(Integer.parseInt(field.get())) : OptionalInt.empty();
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
