package io.perfpin.jvm;

import java.io.IOException;
import java.util.Optional;

/** A field of {@code /proc/<pid>/task/<tid>/stat}, numbered as proc(5) numbers them from 1. */
public final class TaskStat {
    /** Fields after the command's closing parenthesis start with field 3 (state). */
    private static final int FIRST_AFTER_COMMAND = 3;

    private TaskStat() {}

    /** Empty when the thread is gone or its stat file cannot be read. */
    static Optional<String> field(long pid, int tid, int number) {
        try {
            return field(ProcText.read("/proc/" + pid + "/task/" + tid + "/stat"), number);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The command may hold spaces and parentheses: the fields begin after its last ')', one space apart. Found by
     * counting spaces, not by splitting the line: stat reads a field of each counted thread's file.
     */
    public static Optional<String> field(String stat, int number) {
        if (number < FIRST_AFTER_COMMAND) {
            throw new IllegalArgumentException("field " + number + " is not after the command");
        }
        int end = stat.lastIndexOf(')');
        if (end < 0) {
            return Optional.empty();
        }
        String fields = stat.substring(end + 1).trim();
        int from = 0;
        for (int i = FIRST_AFTER_COMMAND; i < number; i++) {
            int space = fields.indexOf(' ', from);
            if (space < 0) {
                return Optional.empty();
            }
            from = space + 1;
        }
        int to = fields.indexOf(' ', from);
        return Optional.of(fields.substring(from, to < 0 ? fields.length() : to));
    }
}
