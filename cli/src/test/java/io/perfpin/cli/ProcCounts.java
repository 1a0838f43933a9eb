package io.perfpin.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * What /proc says of a thread, read as a test reads it, independently of perfpin's own reading: task-clock (ns on
 * a CPU), context switches, page faults, in that order. The oracle for values perfpin took from /proc itself.
 */
final class ProcCounts {
    private ProcCounts() {}

    static long[] of(long pid, int tid) {
        Path task = Paths.get("/proc/" + pid + "/task/" + tid);
        try {
            long onCpu = Long.parseLong(
                    Files.readAllLines(task.resolve("schedstat")).get(0).split(" ")[0]);
            long switches = 0;
            for (String line : Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    switches +=
                            Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
            String stat = Files.readAllLines(task.resolve("stat")).get(0);
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // fields[0] is field 3: minflt is field 10, majflt field 12
            long faults = Long.parseLong(fields[7]) + Long.parseLong(fields[9]);
            return new long[] {onCpu, switches, faults};
        } catch (IOException e) {
            throw new AssertionError("cannot read " + task + ": " + e);
        }
    }

    static long[] minus(long[] later, long[] earlier) {
        long[] delta = new long[later.length];
        for (int i = 0; i < later.length; i++) {
            delta[i] = later[i] - earlier[i];
        }
        return delta;
    }

    static int paranoid() throws IOException {
        return Integer.parseInt(Files.readAllLines(Paths.get("/proc/sys/kernel/perf_event_paranoid"))
                .get(0)
                .strip());
    }
}
