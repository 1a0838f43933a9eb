package io.perfpin.agent;

import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.ThreadSample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a test sees of a child JVM from outside: /proc, its stats file, its JSON-lines recording. */
final class Observed {
    private Observed() {
    }

    /** The thread's allowed CPUs as the kernel reports them. */
    static String cpusAllowed(long pid, int tid) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/" + pid + "/task/" + tid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).strip();
            }
        }
        throw new IllegalStateException("no Cpus_allowed_list for " + pid + "/" + tid);
    }

    /** The process's open perf_event_open descriptors. */
    static long perfEventDescriptors(long pid) throws IOException {
        long count = 0;
        try (var fds = Files.list(Paths.get("/proc/" + pid + "/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    count += Files.readSymbolicLink(fd).toString().equals("anon_inode:[perf_event]") ? 1 : 0;
                } catch (IOException e) {
                    // closed while we looked
                }
            }
        }
        return count;
    }

    static Path statsFile(Path perfpinDir, long pid) {
        return perfpinDir.resolve("jvms").resolve(pid + ".stats");
    }

    /** The live value of {@code event} for thread {@code tid} in the stats file; empty when it has no slot. */
    static OptionalLong liveValue(Path statsFile, int tid, String event) throws IOException {
        StatsFileReader reader = StatsFileReader.open(statsFile);
        int column = reader.eventNames().indexOf(event);
        ThreadSample sample = reader.newSample();
        for (int slot = 0; slot < reader.slots(); slot++) {
            reader.read(slot, sample);
            if (sample.state() == StatsLayout.STATE_RUNNING && sample.tid() == tid && column >= 0) {
                return OptionalLong.of(sample.raw(column));
            }
        }
        return OptionalLong.empty();
    }

    /** How many threads the stats file shows live. */
    static int liveThreads(Path statsFile) throws IOException {
        StatsFileReader reader = StatsFileReader.open(statsFile);
        ThreadSample sample = reader.newSample();
        int live = 0;
        for (int slot = 0; slot < reader.slots(); slot++) {
            reader.read(slot, sample);
            live += sample.state() == StatsLayout.STATE_RUNNING ? 1 : 0;
        }
        return live;
    }

    /** The JSON lines of {@code type} whose thread (or method) name matches {@code name}. */
    static List<String> records(Path jsonLines, String type, String name) throws IOException {
        Pattern namePattern = Pattern.compile("\"(name|method)\":\"" + name + "\"");
        List<String> matching = new ArrayList<>();
        for (String line : Files.readAllLines(jsonLines)) {
            if (line.contains("\"type\":\"" + type + "\"") && namePattern.matcher(line).find()) {
                matching.add(line);
            }
        }
        return matching;
    }

    /** A numeric field of a record: {@code "page-faults":123}, the first occurrence. */
    static double number(String record, String field) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\":(-?[0-9.eE+-]+)").matcher(record);
        if (!m.find()) {
            throw new AssertionError("no " + field + " in " + record);
        }
        return Double.parseDouble(m.group(1));
    }

    static String string(String record, String field) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\":\"([^\"]*)\"").matcher(record);
        if (!m.find()) {
            throw new AssertionError("no " + field + " in " + record);
        }
        return m.group(1);
    }
}
