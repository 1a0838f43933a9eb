package io.perfpin.report;

import io.perfpin.jvm.ProcText;
import java.io.IOException;
import java.util.OptionalLong;

/**
 * How often the kernel took a thread off its CPU against its will (its time slice ran out, or a task of
 * higher priority woke there), as {@code nonvoluntary_ctxt_switches} in {@code /proc/<pid>/task/<tid>/status}
 * counts them since the thread started. The context-switches event counts these and the thread's own
 * blocking together.
 */
public final class Preemptions {
    /** Its line, never the file's first: found in place, since stat reads it twice for every thread it counts. */
    private static final String LINE = "\nnonvoluntary_ctxt_switches:";

    private Preemptions() {}

    /** Empty when the thread has ended or its status cannot be read (another user's, without privilege). */
    public static OptionalLong of(long pid, int tid) {
        try {
            String status = ProcText.read("/proc/" + pid + "/task/" + tid + "/status");
            int at = status.indexOf(LINE);
            if (at >= 0) {
                int from = at + LINE.length();
                int end = status.indexOf('\n', from);
                return OptionalLong.of(Long.parseLong(
                        status.substring(from, end < 0 ? status.length() : end).strip()));
            }
        } catch (IOException | NumberFormatException e) {
            // gone, or not ours to read: the caller falls back to what the counters say
        }
        return OptionalLong.empty();
    }
}
