package io.perfpin.jvm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.OptionalInt;

/**
 * The CPU a thread last ran on, field 39 ({@code processor}) of {@code /proc/<pid>/task/<tid>/stat}. Viewers
 * read it themselves at display time, so the counted JVM pays nothing for it.
 */
public final class LastCpu {
    /** Fields after the command's closing parenthesis start with field 3 (state). */
    private static final int PROCESSOR_AFTER_COMMAND = 39 - 3;

    private LastCpu() {
    }

    /** Empty when the thread is gone or its stat file cannot be read. */
    public static OptionalInt of(long pid, int tid) {
        try {
            return parse(new String(Files.readAllBytes(Paths.get("/proc/" + pid + "/task/" + tid + "/stat")),
                    StandardCharsets.UTF_8));
        } catch (IOException e) {
            return OptionalInt.empty();
        }
    }

    /** The command may hold spaces and parentheses: the fields begin after its last ')'. */
    static OptionalInt parse(String stat) {
        int end = stat.lastIndexOf(')');
        if (end < 0) {
            return OptionalInt.empty();
        }
        String[] fields = stat.substring(end + 1).trim().split(" ");
        if (fields.length <= PROCESSOR_AFTER_COMMAND) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(fields[PROCESSOR_AFTER_COMMAND]));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
