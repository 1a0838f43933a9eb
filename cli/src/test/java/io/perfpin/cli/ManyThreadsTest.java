package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsLayout;
import io.perfpin.testkit.PerfEventDescriptors;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A JVM with 5,000 parked threads and 3 busy ones, under a limit of 20,000 file descriptors: a rule that selects
 * the 3 shows them and keeps the stats file at its first few slots; a rule that selects every thread shows each
 * thread the agent could count, and the others in one line of every frame, and, having not counted them all, takes
 * its agent back when it ends.
 */
class ManyThreadsTest {
    private static final Pattern HEADING = Pattern.compile("--- .* live threads: (\\d+)(?: \\(\\d+ shown\\))?, .* ---");
    private static final Pattern NOT_COUNTED = Pattern.compile(
            "threads not counted: (\\d+), out of file descriptors" + " \\(perfpin may hold \\d+: agent option fds=\\)");

    /**
     * {@code top}'s output once {@code done} holds for it; views again while not, for at most two minutes (a loaded
     * machine enrols thousands of threads slowly).
     */
    private static String viewUntil(String pid, Predicate<String> done) {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            CliRun top = CliRun.capture(
                    () -> Perfpin.run("top", pid, "--threads", ".*", "--interval", "500ms", "--duration", "1s"));
            assertEquals(0, top.code, top.err);
            if (done.test(top.out)) {
                return top.out;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "not within two minutes:\n" + top.out.substring(0, Math.min(4000, top.out.length())));
            }
        }
    }

    @Test
    void aFewSelectedAmongThousandsCostNothingAndEveryThreadIsShownOrSaidNotCounted() throws Exception {
        try (ChildJvm service = ChildJvm.startUnder(
                List.of("prlimit", "--nofile=20000:20000"),
                List.of("-Xss256k"),
                "io.perfpin.apps.Service",
                "0",
                "300",
                "5000")) {
            service.await(Pattern.compile("ready"));
            for (int i = 0; i < 3; i++) {
                service.send("spin busy-" + i);
                service.await(Pattern.compile("thread busy-" + i + " tid \\d+"));
            }
            String pid = Long.toString(service.pid());
            try {
                // The agent enrols the threads that run in the background: views until it shows the 3 busy ones.
                assertEquals(
                        0,
                        CliRun.capture(() -> Perfpin.run(
                                        "attach",
                                        pid,
                                        "--threads",
                                        "busy-.*",
                                        "--interval",
                                        "200ms",
                                        "--duration",
                                        "200ms"))
                                .code);
                String few =
                        viewUntil(pid, out -> IntStream.range(0, 3).allMatch(i -> out.contains("\nbusy-" + i + " ")));
                assertFalse(few.contains("parked-"), few);
                try (StatsFileReader reader = StatsFileReader.open(PerfpinDirectory.statsFile(service.pid()))) {
                    assertEquals(
                            StatsLayout.INITIAL_LIVE_SLOTS,
                            reader.snapshot().liveSlots(),
                            "the file kept its first slots: the 5,000 others cost it nothing");
                }
                assertEquals(0, CliRun.capture(() -> Perfpin.run("detach", pid)).code);

                // This attach fails (threads it could not count) and then takes back its agent: its own view, in a
                // perfpin of its own, is watched until it shows or says every thread, then stopped by SIGTERM.
                try (ChildJvm attach = ChildJvm.start(
                        Perfpin.class.getName(),
                        "attach",
                        pid,
                        "--threads",
                        ".*",
                        "--interval",
                        "500ms",
                        "--duration",
                        "2m")) {
                    long shownOrSaid = 0;
                    while (shownOrSaid < 5003) {
                        // Bounded by the attach's own --duration: a frame of 5,000 threads can take long on a loaded
                        // machine, and the view ends by itself.
                        String heading =
                                attach.await(HEADING, Duration.ofMinutes(2)).group();
                        Matcher shown = HEADING.matcher(heading);
                        shown.matches();
                        // The frame's line on threads not counted, if any, follows its heading (which its time
                        // makes unique): read in order, not awaited, since awaiting takes the first line not taken.
                        Matcher notCounted = NOT_COUNTED.matcher(lineAfter(attach, heading));
                        shownOrSaid = Long.parseLong(shown.group(1))
                                + (notCounted.matches() ? Long.parseLong(notCounted.group(1)) : 0);
                    }
                    attach.signal("TERM");
                    // Read to its end, within its --duration: its totals fill more than a pipe holds.
                    assertEquals(143, attach.awaitExit());
                    String all = String.join("\n", attach.lines());
                    assertTrue(
                            all.contains("agent refused: not counting threads while no file descriptor is left for"
                                    + " them"),
                            all.substring(0, Math.min(4000, all.length())));
                    assertTrue(
                            all.endsWith("; the agent that perfpin loaded is detached, leaving process " + pid
                                    + " as perfpin found it"),
                            all.substring(Math.max(0, all.length() - 4000)));
                }
                assertEquals(0, PerfEventDescriptors.of(service.pid()), "no perf_event descriptor left");
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }

    /** The line {@code attach} printed after {@code line}, once it has printed it. */
    private static String lineAfter(ChildJvm attach, String line) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            List<String> lines = attach.lines();
            int at = lines.lastIndexOf(line);
            if (at >= 0 && at + 1 < lines.size()) {
                return lines.get(at + 1);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no line after '" + line + "' within a minute");
            }
            Thread.sleep(10);
        }
    }
}
