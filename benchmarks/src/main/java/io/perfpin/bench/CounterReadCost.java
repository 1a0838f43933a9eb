package io.perfpin.bench;

import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.BackendUnavailableException;
import io.perfpin.nativeio.Backends;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;
import org.openjdk.jmh.util.Version;

/**
 * Benchmark 1: what one read of a four-event group costs through each backend (JMH,
 * {@link CounterReadBenchmark}), against the raw C loop reading the same group; and a thread's read of its own
 * counters, through rdpmc where the machine allows it.
 */
final class CounterReadCost {
    /** JMH kept short, so that the whole suite fits in minutes on two cores. */
    private static final int WARMUP_ITERATIONS = 3;

    private static final int ITERATIONS = 5;
    private static final int SECONDS_EACH = 1;
    private static final double TARGET = 1.10;
    private static final String HARDWARE_EVENTS = "cycles,instructions";

    private CounterReadCost() {}

    /** How the counter reads were timed, for the report. */
    static String settings() {
        return "JMH " + Version.getPlainVersion() + ", 1 fork, " + WARMUP_ITERATIONS + " warm-up and " + ITERATIONS
                + " measured iterations of " + SECONDS_EACH + " s, average time per read; the raw C loop "
                + SECONDS_EACH + " s of warm-up and " + ITERATIONS + " timed iterations of " + SECONDS_EACH + " s";
    }

    static Section run(Workspace workspace, HardwarePmu pmu) throws IOException, InterruptedException {
        List<String> notes = new ArrayList<>();
        Summary rawC = null;
        String rawCMissing = null;
        try {
            rawC = RawReadLoop.measure(workspace, ITERATIONS, SECONDS_EACH, SECONDS_EACH);
        } catch (IOException e) {
            rawCMissing = e.getMessage();
        }
        List<String> readers = new ArrayList<>();
        for (Backend backend : Backend.values()) {
            try {
                Backends.load(backend);
                readers.add(CounterReadBenchmark.GROUP + backend.name());
            } catch (BackendUnavailableException e) {
                notes.add(backend + " not measured: " + e.getMessage());
            }
        }
        if (readers.contains(CounterReadBenchmark.GROUP + Backend.JNI.name())) {
            readers.add(CounterReadBenchmark.SELF + ReadEvents.LIST);
            if (pmu.rdpmc()) {
                readers.add(CounterReadBenchmark.SELF + HARDWARE_EVENTS);
            }
        }
        Map<String, Summary> nanos = jmh(readers);

        MarkdownTable table =
                new MarkdownTable("reader", "what one read is", "ns per read: median (min–max)", "ns over raw C");
        if (rawC != null) {
            table.row(
                    "raw C loop (readloop.c, gcc -O2)",
                    "one read(2) of the group, by syscall(), in a process of two threads as a JVM is",
                    rawC.format(1),
                    "");
        } else {
            table.row("raw C loop", "not measured: " + rawCMissing, "", "");
        }
        for (Map.Entry<String, Summary> e : nanos.entrySet()) {
            String reader = e.getKey();
            String what = reader.startsWith(CounterReadBenchmark.GROUP)
                    ? "one read(2) of the group, parsed into a snapshot"
                    : reader.endsWith(HARDWARE_EVENTS)
                            ? "rdpmc per event, no system call"
                            : "read(2) per event (software events are never read by rdpmc)";
            String name = reader.startsWith(CounterReadBenchmark.GROUP)
                    ? "`CounterGroup.read`, " + reader.substring(CounterReadBenchmark.GROUP.length())
                    : "`SelfCounters.read`, JNI, " + reader.substring(CounterReadBenchmark.SELF.length());
            table.row(
                    name,
                    what,
                    e.getValue().format(1),
                    rawC == null ? "" : Summary.difference(e.getValue(), rawC).format(1));
        }
        notes.add(
                pmu.rdpmc()
                        ? "rdpmc self-reads work here; the hardware row reads " + HARDWARE_EVENTS + "."
                        : "rdpmc self-reads are not possible on this machine (" + pmu.detail()
                                + "), so only `SelfCounters`'"
                                + " read(2) fallback is measured: one read(2) per event, since self counters are"
                                + " opened one event each.");
        Summary jni = nanos.get(CounterReadBenchmark.GROUP + Backend.JNI.name());
        return new Section("1. Counter read cost", List.of(headline(jni, rawC, rawCMissing)), List.of(table), notes);
    }

    /** What JNI's read adds over the kernel's own read(2) of the group, which is the floor and the measure. */
    private static Headline headline(Summary jni, Summary rawC, String rawCMissing) {
        String what = "counter read, 4-event group: JNI `CounterGroup.read` − raw C read(2), per read";
        String floor = rawC == null ? "" : rawC.format(1) + " ns (readloop.c)";
        String target = "≤ +" + Math.round((TARGET - 1) * 100) + "% of the raw read";
        if (jni == null || rawC == null) {
            return Headline.alone(
                    what, "", "", floor, target, Verdict.notMeasured(jni == null ? "no JNI backend" : rawCMissing));
        }
        Summary adds = Summary.difference(jni, rawC);
        double limit = (TARGET - 1) * rawC.median();
        return Headline.alone(
                what,
                "",
                adds.format(1) + " ns",
                floor,
                target + " (" + Summary.number(limit, 1) + " ns)",
                Verdict.atMost(adds, limit, v -> Summary.number(v, 1) + " ns", ""));
    }

    /** One JMH run over the readers: per reader, the summary of its measured iterations. */
    private static Map<String, Summary> jmh(List<String> readers) {
        Map<String, Summary> summaries = new LinkedHashMap<>();
        if (readers.isEmpty()) {
            return summaries;
        }
        Collection<RunResult> results;
        try {
            results = new Runner(new OptionsBuilder()
                            .include(Pattern.quote(CounterReadBenchmark.class.getName() + "."))
                            .param("reader", readers.toArray(String[]::new))
                            .mode(Mode.AverageTime)
                            .timeUnit(TimeUnit.NANOSECONDS)
                            .forks(1)
                            .warmupIterations(WARMUP_ITERATIONS)
                            .warmupTime(TimeValue.seconds(SECONDS_EACH))
                            .measurementIterations(ITERATIONS)
                            .measurementTime(TimeValue.seconds(SECONDS_EACH))
                            .verbosity(VerboseMode.SILENT)
                            .build())
                    .run();
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed: " + e.getMessage(), e);
        }
        Map<String, Summary> byReader = new HashMap<>();
        for (RunResult result : results) {
            BenchmarkParams params = result.getParams();
            Statistics statistics = result.getPrimaryResult().getStatistics();
            byReader.put(
                    params.getParam("reader"),
                    new Summary(statistics.getPercentile(50), statistics.getMin(), statistics.getMax(), (int)
                            statistics.getN()));
        }
        // in the order asked for, not JMH's alphabetical one; a reader whose setup failed has no entry
        readers.stream().filter(byReader::containsKey).forEach(r -> summaries.put(r, byReader.get(r)));
        return summaries;
    }
}
