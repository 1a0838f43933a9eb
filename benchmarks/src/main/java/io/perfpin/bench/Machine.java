package io.perfpin.bench;

import io.perfpin.cpu.CpuTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the figures were measured on, as the report's first table: they mean little without it. */
final class Machine {
    private Machine() {}

    static Map<String, String> describe(HardwarePmu pmu) {
        Map<String, String> rows = new LinkedHashMap<>();
        List<String> cpuinfo = lines("/proc/cpuinfo");
        rows.put("CPU", field(cpuinfo, "model name"));
        boolean virtual = List.of(field(cpuinfo, "flags").split(" ")).contains("hypervisor");
        CpuTopology topology = CpuTopology.live();
        rows.put(
                "CPUs",
                topology.allowed().size() + " allowed (" + topology.allowed() + ") of "
                        + topology.online().size() + " online, on "
                        + topology.cores().size() + " cores as sysfs tells"
                        + (virtual ? "; a virtual machine (hypervisor flag)" : ""));
        rows.put("kernel", first(lines("/proc/sys/kernel/osrelease")));
        rows.put(
                "JDK",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                        + System.getProperty("java.vendor") + ")");
        rows.put(
                "hardware PMU",
                pmu.present()
                        ? "present; " + (pmu.rdpmc() ? "rdpmc self-reads allowed" : pmu.detail())
                        : "none: opening `instructions` fails: " + pmu.detail());
        rows.put("perf_event_paranoid", first(lines("/proc/sys/kernel/perf_event_paranoid")));
        return rows;
    }

    private static List<String> lines(String file) {
        try {
            return Files.readAllLines(Path.of(file));
        } catch (IOException e) {
            return List.of();
        }
    }

    private static String first(List<String> lines) {
        return lines.isEmpty() ? "unknown" : lines.get(0).strip();
    }

    /** The value of the first {@code key : value} line of /proc/cpuinfo with that key. */
    private static String field(List<String> cpuinfo, String key) {
        for (String line : cpuinfo) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().equals(key)) {
                return line.substring(colon + 1).strip();
            }
        }
        return "unknown";
    }
}
