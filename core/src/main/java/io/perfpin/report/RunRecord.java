package io.perfpin.report;

import io.perfpin.jvm.ThisProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a recording was made on and of, its {@code "type":"run"} record: the machine (host, kernel, CPU model,
 * online CPUs) and the run (process, Java, command, the agent's options), each a map of label to text, shown as
 * they are. Counts mean little without the machine they were taken on, and a recording travels.
 *
 * @param epochMillis when the agent started counting
 * @param events      the events selected, in {@code --events} order (presets expanded, each once), whether or not
 *                    any thread counted them: a report's CSV has a column for each, as the live views' CSV has
 *                    from its header on. Empty in a recording made before the record said them
 */
public record RunRecord(
        long epochMillis, long pid, Map<String, String> machine, Map<String, String> run, List<String> events) {
    public static final String TYPE = "run";
    /** The label in {@code run} of the agent's options, as it was given them. */
    public static final String AGENT_OPTIONS = "agent options";

    private static final String EVENTS = "events";

    public RunRecord {
        machine = Collections.unmodifiableMap(new LinkedHashMap<>(machine));
        run = Collections.unmodifiableMap(new LinkedHashMap<>(run));
        events = List.copyOf(events);
    }

    /**
     * This JVM and the machine it runs on, read from /proc and /sys (a few small files), counting {@code events}
     * (their names, in --events order).
     */
    public static RunRecord ofThisJvm(long epochMillis, String agentOptions, List<String> events) {
        Map<String, String> machine = new LinkedHashMap<>();
        machine.put("host", firstLine(Path.of("/proc/sys/kernel/hostname")));
        machine.put("kernel", firstLine(Path.of("/proc/sys/kernel/osrelease")));
        machine.put("cpu", cpuModel(Path.of("/proc/cpuinfo")));
        machine.put("online cpus", firstLine(Path.of("/sys/devices/system/cpu/online")));
        Map<String, String> run = new LinkedHashMap<>();
        run.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        run.put("command", System.getProperty("sun.java.command", "unknown"));
        run.put(AGENT_OPTIONS, agentOptions == null ? "" : agentOptions);
        return new RunRecord(epochMillis, ThisProcess.pid(), machine, run, events);
    }

    public String toJson() {
        return Json.object()
                .field("type", TYPE)
                .field("time", epochMillis)
                .field("pid", pid)
                .field("machine", machine)
                .field("run", run)
                .field(EVENTS, events)
                .end();
    }

    /** @throws IllegalArgumentException naming the field that is missing or of the wrong kind */
    public static RunRecord fromJson(Map<?, ?> object) {
        return new RunRecord(
                JsonFields.field(object, "time", Long.class),
                JsonFields.field(object, "pid", Long.class),
                JsonFields.map(object, "machine", JsonFields::string, "strings"),
                JsonFields.map(object, "run", JsonFields::string, "strings"),
                object.containsKey(EVENTS) ? JsonFields.strings(object, EVENTS) : List.of());
    }

    private static String firstLine(Path file) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line = in.readLine();
            return line == null ? "unknown" : line.strip();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** The first {@code model name} of /proc/cpuinfo, read no further: the file has a block per CPU. */
    private static String cpuModel(Path cpuinfo) {
        try (BufferedReader in = Files.newBufferedReader(cpuinfo, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).strip().equals("model name")) {
                    return line.substring(colon + 1).strip();
                }
            }
        } catch (IOException | RuntimeException e) {
            // an architecture without the field, or no /proc: said as unknown
        }
        return "unknown";
    }
}
