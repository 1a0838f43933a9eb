package io.perfpin.agent;

import io.perfpin.jvm.TaskStat;
import io.perfpin.report.JsonReader;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.StatsSnapshot;
import io.perfpin.stats.ThreadSample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** What a test sees of a child JVM from outside: /proc, its stats file, its JSON-lines recording. */
final class Observed {
    private Observed() {}

    /**
     * Waits until the thread's allowed CPUs are {@code expected}: a thread may be pinned after the check that follows
     * the attach (by the agent's own thread, a moment after the attach, where the JVM's thread dump maps the threads
     * that already run). Returns what was last seen.
     */
    static String awaitCpusAllowed(long pid, int tid, String expected) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String seen = cpusAllowed(pid, tid);
        while (!seen.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            seen = cpusAllowed(pid, tid);
        }
        return seen;
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

    /** This process's hard RLIMIT_NOFILE, which a child JVM inherits and raises its soft limit to. */
    static long hardOpenFileLimit() throws IOException {
        String line = Files.readAllLines(Paths.get("/proc/self/limits")).stream()
                .filter(l -> l.startsWith("Max open files"))
                .findFirst()
                .orElseThrow();
        String hard = line.substring("Max open files".length()).trim().split("\\s+")[1];
        return hard.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(hard);
    }

    /** What each of the process's descriptors names ({@code /path}, {@code socket:[inode]}, ...), sorted. */
    static List<String> descriptors(long pid) throws IOException {
        List<String> targets = new ArrayList<>();
        try (var fds = Files.list(Paths.get("/proc/" + pid + "/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    targets.add(Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    // closed while we looked
                }
            }
        }
        Collections.sort(targets);
        return targets;
    }

    /** The names of the process's threads as the kernel has them (15 characters at most), sorted. */
    static List<String> threadNames(long pid) throws IOException {
        List<String> names = new ArrayList<>();
        try (var tasks = Files.list(Paths.get("/proc/" + pid + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    names.add(Files.readString(task.resolve("comm")).strip());
                } catch (IOException e) {
                    // ended while we looked
                }
            }
        }
        Collections.sort(names);
        return names;
    }

    /** The TIDs of the process's threads whose kernel name (15 characters at most) starts with {@code prefix}. */
    static List<Integer> tidsNamed(long pid, String prefix) throws IOException {
        List<Integer> tids = new ArrayList<>();
        try (var tasks = Files.list(Paths.get("/proc/" + pid + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith(prefix)) {
                        tids.add(Integer.parseInt(task.getFileName().toString()));
                    }
                } catch (IOException e) {
                    // ended while we looked
                }
            }
        }
        return tids;
    }

    /**
     * The CPU time (utime + stime, in clock ticks: USER_HZ, 100 a second) that the process's threads whose kernel name
     * starts with {@code prefix} took so far; a thread that ends while they are read is left out.
     */
    static long cpuTicks(long pid, String prefix) throws IOException {
        long ticks = 0;
        for (int tid : tidsNamed(pid, prefix)) {
            try {
                String stat = Files.readString(Paths.get("/proc/" + pid + "/task/" + tid + "/stat"));
                ticks += Long.parseLong(TaskStat.field(stat, 14).orElse("0"))
                        + Long.parseLong(TaskStat.field(stat, 15).orElse("0"));
            } catch (IOException e) {
                // ended while we looked
            }
        }
        return ticks;
    }

    /** The process's resident memory (VmRSS), in KiB. */
    static long residentKib(long pid) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(
                        line.substring("VmRSS:".length()).replace("kB", "").strip());
            }
        }
        throw new IllegalStateException("no VmRSS for " + pid);
    }

    /**
     * The agent's stats file, opened once it is there whole: the agent's sampler makes it after premain or agentmain
     * has returned, so a test that opens it as the application starts waits, up to 30 s.
     */
    static StatsFileReader openStats(Path statsFile) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try {
                return StatsFileReader.open(statsFile);
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(10);
            }
        }
    }

    static Path statsFile(Path perfpinDir, long pid) {
        return perfpinDir.resolve("jvms").resolve(pid + ".stats");
    }

    /** The live value of {@code event} for thread {@code tid} in the stats file; empty when it has no slot. */
    static OptionalLong liveValue(Path statsFile, int tid, String event) throws IOException, InterruptedException {
        long[] count = liveCount(statsFile, tid, event);
        return count == null ? OptionalLong.empty() : OptionalLong.of(count[0]);
    }

    /**
     * The live raw count of {@code event} for thread {@code tid} in the stats file, with the kernel's time enabled
     * and time running for it, in that order; null when it has no slot.
     */
    static long[] liveCount(Path statsFile, int tid, String event) throws IOException, InterruptedException {
        StatsSnapshot snapshot;
        try (StatsFileReader reader = openStats(statsFile)) {
            snapshot = reader.snapshot();
        }
        int column = snapshot.eventNames().indexOf(event);
        for (ThreadSample sample : snapshot.threads()) {
            if (sample.state() == StatsLayout.STATE_RUNNING && sample.tid() == tid && column >= 0) {
                return new long[] {sample.raw(column), sample.enabledNanos(column), sample.runningNanos(column)};
            }
        }
        return null;
    }

    /** How many threads the stats file shows live. */
    static int liveThreads(Path statsFile) throws IOException, InterruptedException {
        try (StatsFileReader reader = openStats(statsFile)) {
            return (int) reader.snapshot().threads().stream()
                    .filter(t -> t.state() == StatsLayout.STATE_RUNNING)
                    .count();
        }
    }

    /** The stats file's count of threads not counted, 0 while it cannot be read. */
    static long threadsNotCounted(StatsFileReader reader) {
        try {
            return reader.snapshot().threadsNotCounted();
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * The JSON lines of {@code type} whose thread (or method) name matches {@code name} whole, each read by
     * perfpin's own reader, so that a line that is not one JSON object fails the test.
     */
    static List<String> records(Path jsonLines, String type, String name) throws IOException {
        Pattern namePattern = Pattern.compile(name);
        String text = Files.readString(jsonLines);
        List<String> matching = new ArrayList<>();
        // A last line without its newline is still being written: not a record yet.
        for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            Map<?, ?> record = parse(line);
            if (type.equals(record.get("type"))
                    && Stream.of("name", "method")
                            .map(record::get)
                            .anyMatch(named -> named instanceof String
                                    && namePattern.matcher((String) named).matches())) {
                matching.add(line);
            }
        }
        return matching;
    }

    /** A numeric field of a record, {@code page-faults} of {@code "counters":{"page-faults":123}}: the first. */
    static double number(String record, String field) {
        return ((Number) first(record, field, Number.class)).doubleValue();
    }

    static String string(String record, String field) {
        return (String) first(record, field, String.class);
    }

    /** The value at {@code path} in a record, {@code "unsupported", "page-faults"}; null where there is none. */
    static Object value(String record, String... path) {
        Object value = parse(record);
        for (String key : path) {
            value = value instanceof Map ? ((Map<?, ?>) value).get(key) : null;
        }
        return value;
    }

    private static Map<?, ?> parse(String record) {
        Object parsed = JsonReader.parse(record);
        if (!(parsed instanceof Map)) {
            throw new AssertionError("not a JSON object: " + record);
        }
        return (Map<?, ?>) parsed;
    }

    /** The first value named {@code field}, in the record's order, at any depth, of {@code kind}. */
    private static Object first(String record, String field, Class<?> kind) {
        Object found = first(parse(record), field);
        if (!kind.isInstance(found)) {
            throw new AssertionError("no " + kind.getSimpleName() + " " + field + " in " + record);
        }
        return found;
    }

    private static Object first(Map<?, ?> object, String field) {
        for (Map.Entry<?, ?> entry : object.entrySet()) {
            if (entry.getKey().equals(field)) {
                return entry.getValue();
            }
            if (entry.getValue() instanceof Map) {
                Object nested = first((Map<?, ?>) entry.getValue(), field);
                if (nested != null) {
                    return nested;
                }
            }
        }
        return null;
    }
}
