package io.perfpin.cli;

import io.perfpin.PerfpinDirectory;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsLayout;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM with 5,000 parked threads and 3 busy ones, under a limit of 20,000 file descriptors: a rule that selects
 * the 3 shows them and keeps the stats file at its first few slots; a rule that selects every thread shows each
 * thread the agent could count, and the others in one line of every frame (attach then exits 1: the agent could
 * not do all its options asked).
 */
class ManyThreadsTest {
    private static final Pattern HEADING = Pattern.compile("--- .* live threads: (\\d+)(?: \\(\\d+ shown\\))?, .* ---");
    private static final Pattern NOT_COUNTED = Pattern.compile("threads not counted: (\\d+), out of file descriptors"
            + " \\(perfpin may hold \\d+: agent option fds=\\)");

    @Test
    void aFewSelectedAmongThousandsCostNothingAndEveryThreadIsShownOrSaidNotCounted() throws Exception {
        try (ChildJvm service = ChildJvm.startUnder(List.of("prlimit", "--nofile=20000:20000"), List.of("-Xss256k"),
                "io.perfpin.apps.Service", "0", "300", "5000")) {
            service.await(Pattern.compile("ready"));
            for (int i = 0; i < 3; i++) {
                service.send("spin busy-" + i);
                service.await(Pattern.compile("thread busy-" + i + " tid \\d+"));
            }
            String pid = Long.toString(service.pid());
            try {
                CliRun few = CliRun.capture(() -> Perfpin.run("attach", pid, "--threads", "busy-.*", "--interval",
                        "200ms", "--duration", "1500ms", "--detach-on-exit"));
                assertEquals(0, few.code, few.err);
                for (int i = 0; i < 3; i++) {
                    assertTrue(few.out.contains("\nbusy-" + i + " "), few.out);
                }
                assertFalse(few.out.contains("parked-"), few.out);
                try (StatsFileReader reader = StatsFileReader.open(PerfpinDirectory.statsFile(service.pid()))) {
                    assertEquals(StatsLayout.INITIAL_LIVE_SLOTS, reader.snapshot().liveSlots(),
                            "the file kept its first slots: the 5,000 others cost it nothing");
                }

                CliRun all = CliRun.capture(() -> Perfpin.run("attach", pid, "--threads", ".*", "--interval", "500ms",
                        "--duration", "4s", "--detach-on-exit"));
                // Threads it could not count are something its options asked that the agent could not do.
                assertEquals(ExitCode.FAILURE, all.code, all.err);
                assertTrue(all.out.contains("agent refused: not counting threads while no file descriptor is left for"
                        + " them"), all.err);
                String[] lines = all.out.split("\n");
                int frames = 0;
                long shownOrSaid = 0;
                for (int i = 0; i < lines.length; i++) {
                    Matcher heading = HEADING.matcher(lines[i]);
                    if (!heading.matches() || lines[i].contains("since each thread was enrolled")) {
                        continue;
                    }
                    frames++;
                    long live = Long.parseLong(heading.group(1));
                    Matcher notCounted = NOT_COUNTED.matcher(lines[i + 1]);
                    long uncounted = notCounted.matches() ? Long.parseLong(notCounted.group(1)) : 0;
                    shownOrSaid = live + uncounted; // the agent enrols the running threads in the background
                }
                assertTrue(frames > 0, all.out.substring(0, Math.min(4000, all.out.length())));
                assertTrue(shownOrSaid >= 5003, "by the last frame, every thread counted, or said not counted: "
                        + shownOrSaid);
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }
}
