package io.perfpin.cli;

import io.perfpin.counter.ThreadCounters;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code perfpin stat} as a user without privilege, at {@code perf_event_paranoid} 2, where the kernel refuses
 * the {@code sched} events (they count kernel side): their values come from /proc instead, marked so, and lie
 * between what /proc itself counted over a window inside stat's and over one around it. Root at paranoid 2 still
 * counts through perf events, so a second user runs both the JVM and stat.
 */
class StatUnprivilegedTest {
    private static final Pattern WORKER = Pattern.compile("thread (worker-\\d+) tid (\\d+)");
    private static final Pattern SAMPLE = Pattern.compile("\\{\"type\":\"sample\".*");
    private static final List<String> FROM_PROC = List.of("task-clock", "context-switches", "page-faults");

    @Test
    void theSchedEventsTheKernelRefusesComeFromProcMarkedSoAndWithinWhatProcCounted() throws Exception {
        assumeTrue(ProcCounts.paranoid() >= 2, "perf_event_paranoid is below 2 here: the kernel lets any user count them");
        Adversary user = Adversary.create();
        Path copy = Files.createTempDirectory("perfpin-classpath");
        String classPath = Adversary.readableCopy(
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")), copy);
        try (ChildJvm service = ChildJvm.startUnder(user.launcher(), classPath, List.of(), "io.perfpin.apps.Service",
                "2", "120")) {
            Map<String, Integer> tids = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                Matcher worker = service.await(WORKER);
                tids.put(worker.group(1), Integer.parseInt(worker.group(2)));
            }
            service.await(Pattern.compile("ready"));

            Map<String, long[]> around = new HashMap<>();
            Map<String, long[]> inside = new HashMap<>();
            tids.forEach((name, tid) -> around.put(name, ProcCounts.of(service.pid(), tid)));
            try (ChildJvm stat = ChildJvm.startUnder(user.launcher(), classPath, List.of(), "io.perfpin.cli.Perfpin",
                    "stat", "--pid", Long.toString(service.pid()), "--threads", "worker-.*", "--interval", "100ms",
                    "--duration", "120s", "--format", "json")) {
                // Once a sample is out, stat counts; what /proc counts from here until the next sample, it counted.
                stat.await(SAMPLE);
                tids.forEach((name, tid) -> inside.put(name, ProcCounts.of(service.pid(), tid)));
                stat.await(SAMPLE);
                stat.await(SAMPLE);
                tids.forEach((name, tid) -> inside.put(name, ProcCounts.minus(ProcCounts.of(service.pid(), tid),
                        inside.get(name))));
                stat.signal("TERM");
                assertEquals(128 + 15, stat.awaitExit(), String.join("\n", stat.lines()));
                tids.forEach((name, tid) -> around.put(name, ProcCounts.minus(ProcCounts.of(service.pid(), tid),
                        around.get(name))));

                List<String> said = stat.lines();
                assertFalse(said.stream().anyMatch(l -> l.startsWith("\tat ") || l.contains("Exception")),
                        String.join("\n", said));
                int checked = 0;
                for (String line : said) {
                    if (!line.startsWith("{\"type\":\"thread\"")) {
                        continue;
                    }
                    ThreadReport r = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(line)).report();
                    for (int e = 0; e < FROM_PROC.size(); e++) {
                        String event = FROM_PROC.get(e);
                        assertEquals(ThreadCounters.PROC, r.sources().get(event), line);
                        long value = r.counters().get(event);
                        assertTrue(inside.get(r.name())[e] <= value && value <= around.get(r.name())[e], event + " of "
                                + r.name() + ": " + value + " is not between " + inside.get(r.name())[e] + " and "
                                + around.get(r.name())[e]);
                    }
                    assertTrue(inside.get(r.name())[1] > 0, "the worker naps each millisecond, so it is switched out");
                    // Only migrations may be missing, on a kernel without CONFIG_SCHED_DEBUG, and then say why.
                    assertTrue(r.unsupported().isEmpty() || r.unsupported().keySet().equals(Set.of(
                            "cpu-migrations")) && r.unsupported().get("cpu-migrations").contains("se.nr_migrations"),
                            line);
                    checked++;
                }
                assertEquals(2, checked, String.join("\n", said));
            }
        } finally {
            Adversary.removeAll(copy);
        }
    }
}
