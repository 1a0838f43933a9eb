package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code perfpin stat} as a user without privilege, at {@code perf_event_paranoid} 2, where the kernel refuses
 * the {@code sched} events (they count kernel side): their values come from /proc instead, marked so, and lie
 * between what /proc itself counted over a window inside stat's and over one around it.
 */
class StatUnprivilegedTest {
    private static final Pattern SAMPLE = Pattern.compile("\\{\"type\":\"sample\".*");

    @Test
    void theSchedEventsTheKernelRefusesComeFromProcMarkedSoAndWithinWhatProcCounted() throws Exception {
        try (UnprivilegedService jvm = UnprivilegedService.start(2)) {
            Map<String, long[]> around = jvm.procCounts();
            try (ChildJvm stat = jvm.startPerfpin(
                    "stat",
                    "--pid",
                    jvm.pid(),
                    "--threads",
                    "worker-.*",
                    "--interval",
                    "100ms",
                    "--duration",
                    "120s",
                    "--format",
                    "json")) {
                // Once a sample is out, stat counts; what /proc counts from here until the next sample, it counted.
                stat.await(SAMPLE);
                Map<String, long[]> inside = jvm.procCounts();
                stat.await(SAMPLE);
                stat.await(SAMPLE);
                inside = jvm.procCountsSince(inside);
                stat.signal("TERM");
                assertEquals(128 + 15, stat.awaitExit(), String.join("\n", stat.lines()));
                around = jvm.procCountsSince(around);

                List<String> said = stat.lines();
                assertFalse(
                        said.stream().anyMatch(l -> l.startsWith("\tat ") || l.contains("Exception")),
                        String.join("\n", said));
                assertEquals(2, UnprivilegedService.checkRecords(said, inside, around), String.join("\n", said));
            }
        }
    }
}
