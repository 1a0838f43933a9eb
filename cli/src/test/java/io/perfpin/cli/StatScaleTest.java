package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code perfpin stat} on a JVM of 10,000 threads: it holds at most its share of its own free descriptors, one
 * per event per counted thread, and lists the threads beyond it as not counted, with the reason, never failing
 * for want of descriptors.
 */
class StatScaleTest {
    private static final int THREADS = 10_000;
    private static final Pattern SUMMARY = Pattern.compile(
            "perfpin stat: (\\d+) of " + THREADS + " threads not counted: (perfpin's share of this process's file"
                    + " descriptors \\((\\d+), --fds=90% of the \\d+ free when it started\\) is in use, .*)");

    @Test
    void tenThousandThreadsAreEachCountedOrListedNotCountedWithinTheDescriptorBudget() throws Exception {
        try (ChildJvm service = ChildJvm.startWith(List.of("-Xss256k"), "io.perfpin.apps.Service", "0", "300")) {
            service.await(Pattern.compile("ready"));
            service.send("park " + THREADS + " parked");
            service.await(Pattern.compile("parked " + THREADS));

            CliRun run = CliRun.capture(() -> Perfpin.run(
                    "stat",
                    Long.toString(service.pid()),
                    "--threads",
                    "parked-.*",
                    "--duration",
                    "1s",
                    "--format",
                    "json"));

            assertEquals(ExitCode.OK, run.code, run.err);
            List<ThreadReport> reports = run.out
                    .lines()
                    .map(line -> ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(line))
                            .report())
                    .collect(Collectors.toList());
            assertEquals(THREADS, reports.size());
            assertEquals(
                    THREADS, reports.stream().map(ThreadReport::tid).distinct().count(), "each thread once");
            List<ThreadReport> counted =
                    reports.stream().filter(r -> !r.counters().isEmpty()).toList();
            Set<String> reasons = new HashSet<>();
            for (ThreadReport r : reports) {
                if (r.counters().isEmpty()) {
                    reasons.addAll(r.unsupported().values());
                } else {
                    assertEquals(Map.of(), r.unsupported(), r.name());
                }
            }
            // A parked thread's events are all counted by the kernel, or all from /proc when it permits none.
            int descriptorsEach =
                    counted.get(0).counters().size() - counted.get(0).sources().size();
            if (counted.size() == THREADS) {
                assertEquals("", run.err, "no thread left out, nothing to say");
                return;
            }
            Matcher summary = SUMMARY.matcher(run.err.strip());
            assertTrue(summary.matches(), "one line that says how many threads were not counted, and why: " + run.err);
            long budget = Long.parseLong(summary.group(3));
            assertEquals(THREADS - counted.size(), Integer.parseInt(summary.group(1)));
            assertEquals(
                    Set.of(DescriptorBudget.THREAD_NOT_COUNTED + summary.group(2)),
                    reasons,
                    "each thread not counted says why, for each of its events");
            assertTrue(descriptorsEach > 0, "only descriptors leave threads out");
            assertEquals(budget / descriptorsEach, counted.size(), "as many counted as the budget holds");
        }
    }
}
