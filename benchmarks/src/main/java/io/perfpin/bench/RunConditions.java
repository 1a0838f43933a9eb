package io.perfpin.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How quiet the machine was while the benchmarks ran: the load average as they began, and the share of CPU
 * time the hypervisor gave to other guests during the run (steal). On a shared VM these say how much of a
 * spread is the neighbours'.
 */
final class RunConditions {
    /** user, nice, system, idle, iowait, irq, softirq, steal: the fields of /proc/stat's "cpu" line summed. */
    private static final int FIELDS = 8;

    private static final int STEAL = 7;

    private final String loadAtStart;
    private final long[] cpuAtStart;

    private RunConditions(String loadAtStart, long[] cpuAtStart) {
        this.loadAtStart = loadAtStart;
        this.cpuAtStart = cpuAtStart;
    }

    static RunConditions begin() {
        return new RunConditions(loadAverage(), cpuTimes());
    }

    /** Rows for the machine table, measured from {@link #begin} until now. */
    Map<String, String> rows() {
        Map<String, String> rows = new LinkedHashMap<>();
        rows.put("load average (1, 5, 15 min) as the run began", loadAtStart);
        long[] now = cpuTimes();
        String steal = "unknown";
        if (now.length == FIELDS && cpuAtStart.length == FIELDS) {
            long total = Arrays.stream(now).sum() - Arrays.stream(cpuAtStart).sum();
            if (total > 0) {
                steal = String.format(
                        Locale.ROOT, "%.1f%% of all CPU time", 100.0 * (now[STEAL] - cpuAtStart[STEAL]) / total);
            }
        }
        rows.put("CPU time stolen by the hypervisor during the run", steal);
        return rows;
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).strip().split(" ");
            return fields[0] + ", " + fields[1] + ", " + fields[2];
        } catch (IOException | ArrayIndexOutOfBoundsException e) {
            return "unknown";
        }
    }

    /** The first eight fields of /proc/stat's aggregate "cpu" line, in clock ticks; empty when unreadable. */
    private static long[] cpuTimes() {
        try {
            String[] fields =
                    Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            return Arrays.stream(fields, 1, 1 + FIELDS)
                    .mapToLong(Long::parseLong)
                    .toArray();
        } catch (IOException | RuntimeException e) {
            return new long[0];
        }
    }
}
