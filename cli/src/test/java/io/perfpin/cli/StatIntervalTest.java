package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code perfpin stat} over time: with {@code --interval} each interval's counts as they come, then the totals;
 * and the chosen threads that start or end while it counts, followed as {@code perf stat -p} follows them.
 */
class StatIntervalTest {
    private static final Pattern WORKER = Pattern.compile("thread (worker-\\S+) tid (\\d+)");
    private static final Pattern HEADING = Pattern.compile(
            "--- \\d\\d:\\d\\d:\\d\\d(\\.\\d+)?  perfpin stat  pid \\d+  threads: 2, their counts over the last"
                    + " \\d+\\.\\d{3} s ---");
    private static ChildJvm service;

    @BeforeAll
    static void startService() throws Exception {
        service = ChildJvm.start("io.perfpin.apps.Service", "2", "120");
        service.await(Pattern.compile("ready"));
    }

    @AfterAll
    static void stopService() throws Exception {
        service.close();
    }

    @Test
    void aTableShowsABlockPerIntervalThenTheTotals() {
        CliRun run = stat("--threads", "worker-.*", "--interval", "100ms", "--duration", "300ms");
        List<String> lines = run.out.lines().toList();
        assertTrue(HEADING.matcher(lines.get(0)).matches(), lines.get(0));
        assertTrue(lines.get(1).startsWith("thread "), lines.get(1));
        int totals = lines.indexOf("--- totals: each thread's counts since it was first counted ---");
        assertTrue(totals > 3, run.out);
        assertTrue(lines.get(totals + 1).startsWith("thread "), run.out);
        assertTrue(lines.subList(totals + 2, totals + 4).stream().allMatch(l -> l.startsWith("worker-")), run.out);
        long blocks = lines.stream().filter(l -> HEADING.matcher(l).matches()).count();
        assertEquals(
                blocks,
                lines.subList(0, totals).stream()
                        .filter(l -> l.startsWith("thread "))
                        .count(),
                "a table under each heading");
    }

    @Test
    void csvHasOneHeaderForTheSamplesAndTheTotalsWhichAreTheirSums() {
        CliRun run = stat("--threads", "worker-.*", "--interval", "100ms", "--duration", "300ms", "--format", "csv");
        List<String> rows = run.out.lines().toList();
        assertTrue(rows.get(0).startsWith("name,tid,javaId,cpus,pin,task-clock,task-clock:coverage,"), rows.get(0));
        assertEquals(1, rows.stream().filter(r -> r.startsWith("name,")).count(), run.out);
        List<String> header = List.of(rows.get(0).split(","));
        int taskClock = header.indexOf("task-clock");
        int type = header.indexOf("type");
        Map<String, Long> sums = new HashMap<>();
        Map<String, Long> totals = new HashMap<>();
        for (String row : rows.subList(1, rows.size())) {
            String[] fields = row.split(",", -1);
            long value = Long.parseLong(fields[taskClock]);
            if (fields[type].equals("sample")) {
                assertTrue(totals.isEmpty(), "samples come before the totals: " + run.out);
                sums.merge(fields[0], value, Long::sum);
            } else {
                assertEquals("thread", fields[type]);
                totals.put(fields[0], value);
            }
        }
        assertEquals(Map.of("worker-0", 0L, "worker-1", 0L).keySet(), totals.keySet());
        assertEquals(sums, totals, "each thread's samples add up to its total");
    }

    /**
     * A worker that starts while stat counts is counted from then on, and one that ends is finalised with its
     * counts; each thread's samples add up to its total. stat runs as its own JVM until the test sends SIGTERM.
     */
    @Test
    void followsTheChosenThreadsThatStartAndEndWhileItCounts() throws Exception {
        try (ChildJvm followed = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            Map<String, Integer> tids = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                Matcher worker = followed.await(WORKER);
                tids.put(worker.group(1), Integer.parseInt(worker.group(2)));
            }
            // stat once the JVM runs main: one still starting answers no attach yet, and stat would refuse it
            followed.await(Pattern.compile("ready"));
            try (ChildJvm stat = ChildJvm.start(
                    "io.perfpin.cli.Perfpin",
                    "stat",
                    "--pid",
                    Long.toString(followed.pid()),
                    "--threads",
                    "worker-.*",
                    "--interval",
                    "100ms",
                    "--duration",
                    "120s",
                    "--format",
                    "json")) {
                followsWhileCounting(followed, stat, tids);
            }
        }
    }

    private static void followsWhileCounting(ChildJvm followed, ChildJvm stat, Map<String, Integer> tids)
            throws Exception {
        Samples samples = new Samples(stat);
        samples.awaitBlockWith("worker-0");

        followed.send("start worker-late");
        Matcher late = followed.await(WORKER);
        assertEquals("worker-late", late.group(1));
        tids.put("worker-late", Integer.parseInt(late.group(2)));
        samples.awaitBlockWith("worker-late");

        followed.send("end worker-1");
        followed.await(Pattern.compile("ended worker-1"));
        // Once a block lacks it, stat has seen it gone and finalised it.
        samples.awaitBlockWithout("worker-1");
        stat.signal("TERM");
        // A JVM that a signal ends exits with 128 + its number, once its shutdown hooks have run: stat's wrote it
        // all.
        assertEquals(128 + 15, stat.awaitExit(), String.join("\n", stat.lines()));

        Map<String, ThreadReport> totals = new LinkedHashMap<>();
        for (String line : stat.lines()) {
            if (line.startsWith("{\"type\":\"thread\"")) {
                ThreadReport r = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(line))
                        .report();
                totals.put(r.name(), r);
            }
        }
        assertEquals(
                List.of("worker-0", "worker-1", "worker-late"),
                List.copyOf(totals.keySet()),
                "in the order stat began counting them");
        for (ThreadReport total : totals.values()) {
            assertEquals(tids.get(total.name()), total.tid(), total.name());
            assertTrue(total.counters().get("task-clock") > 0, total.name());
            for (String event : total.counters().keySet()) {
                assertEquals(
                        total.counters().get(event),
                        samples.sum(total.name(), event),
                        total.name() + "'s samples of " + event + " add up to its total");
            }
        }
        assertTrue(
                totals.get("worker-1").wallNanos() < totals.get("worker-0").wallNanos(),
                "worker-1's counts end when it ended, worker-0's when stat did");
    }

    private static CliRun stat(String... options) {
        List<String> args = new ArrayList<>(List.of("stat", "--pid", Long.toString(service.pid())));
        args.addAll(List.of(options));
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
        assertEquals(ExitCode.OK, run.code, run.err);
        return run;
    }

    /** stat's sample records, read as they come: a block is the records of one interval, which share a time. */
    private static final class Samples {
        private static final Pattern SAMPLE = Pattern.compile("\\{\"type\":\"sample\".*");
        private final ChildJvm stat;
        /** The first record of the block after the last one read, read with it. */
        private ThreadRecord next;

        Samples(ChildJvm stat) {
            this.stat = stat;
        }

        /** Reads blocks until one has a sample of {@code name}; stat's --duration bounds the wait. */
        void awaitBlockWith(String name) throws IOException {
            while (!nextBlock().contains(name)) {
                // on to the next block
            }
        }

        /** Reads blocks until one has no sample of {@code name}. */
        void awaitBlockWithout(String name) throws IOException {
            while (nextBlock().contains(name)) {
                // on to the next block
            }
        }

        /** The names in the next block: read up to the first record of the block after it. */
        private List<String> nextBlock() throws IOException {
            ThreadRecord first = next != null ? next : read();
            List<String> names = new ArrayList<>(List.of(first.report().name()));
            for (next = read(); next.epochMillis() == first.epochMillis(); next = read()) {
                names.add(next.report().name());
            }
            return names;
        }

        private ThreadRecord read() throws IOException {
            return ThreadRecord.fromJson(
                    (Map<?, ?>) JsonReader.parse(stat.await(SAMPLE).group()));
        }

        /** The sum of {@code event} over every sample of {@code name} stat printed (once it has ended). */
        long sum(String name, String event) {
            return stat.lines().stream()
                    .filter(l -> SAMPLE.matcher(l).matches())
                    .map(l -> ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(l))
                            .report())
                    .filter(r -> r.name().equals(name))
                    .mapToLong(r -> r.counters().getOrDefault(event, 0L))
                    .sum();
        }
    }
}
