package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.jvm.AgentJar;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code top} in a real terminal, tmux's, 120 columns wide, driven by its keys as a person would: the frame fits the
 * width, {@code s} sorts by the next column, {@code p} pauses and goes on, {@code q} quits with the totals; the heading
 * of a JVM on the simulated PMU says so.
 */
class TerminalViewTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void keysQuitSortAndPauseAndTheFrameFits120Columns() throws Exception {
        String socket = "perfpin-test-" + ProcessHandle.current().pid();
        try (ChildJvm service = ChildJvm.withAgent(
                "threads=worker-.*|spin-.*;events=sched;interval=200ms", "io.perfpin.apps.Service", "2", "120")) {
            service.await(Pattern.compile("ready"));
            service.send("spin spin-with-a-name-long-enough-to-be-cut-in-the-middle-so-that-the-row-fits-the-screen-1");
            service.await(Pattern.compile("thread spin-.* tid \\d+"));
            try {
                top(socket, service.pid());
                String frame = await(socket, "q quits, s sorts by the next column (now task-clock), p pauses");
                for (String line : frame.split("\n")) {
                    assertTrue(line.length() <= 120, "fits 120 columns: '" + line + "'\n" + frame);
                }
                assertTrue(
                        frame.matches("(?s).*\nspin-with-a-name\\S*\u2026\\S*screen-1 .*"),
                        "the long name cut in its middle:\n" + frame);
                tmux(socket, "send-keys", "-t", "view", "s");
                await(socket, "(now cpu-utilisation)");
                tmux(socket, "send-keys", "-t", "view", "p");
                await(socket, "paused: p goes on, q quits");
                tmux(socket, "send-keys", "-t", "view", "p");
                await(socket, "(now cpu-utilisation), p pauses");
                tmux(socket, "send-keys", "-t", "view", "q");
                String end = await(socket, "EXITED 0");
                assertTrue(end.contains("perfpin top: stopped. Totals per thread since it was enrolled:"), end);
            } finally {
                tmux(socket, "kill-server");
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }

    /**
     * A JVM whose hardware counts the simulated PMU makes (tests only): the redrawn screen's heading says so, as its
     * stats file does, though top's JVM has no such property.
     */
    @Test
    void theHeadingOfASimulatedPmusFrameSaysSo() throws Exception {
        String socket = "perfpin-test-pmu-" + ProcessHandle.current().pid();
        String agent = "-javaagent:" + AgentJar.forThisUser() + "=threads=worker-.*;events=ipc;interval=200ms";
        try (ChildJvm service = ChildJvm.startWith(
                List.of(agent, "-Dperfpin.simulated-pmu=skylake"), "io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            try {
                top(socket, service.pid());
                String frame = await(socket, "q quits, s sorts by the next column");
                assertTrue(
                        frame.matches("(?s)(.*\n)?--- [0-9:.]+  perfpin top  pid " + service.pid()
                                + " \\(simulated skylake PMU\\)  live threads: 1, .*"),
                        "the frame's first line:\n" + frame);
                tmux(socket, "send-keys", "-t", "view", "q");
                await(socket, "EXITED 0");
            } finally {
                tmux(socket, "kill-server");
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
    }

    /** {@code top} of {@code pid} in a tmux session {@code view} on {@code socket}, 120 by 40, as a person runs it. */
    private void top(String socket, long pid) throws Exception {
        Path script = dir.resolve("top.sh");
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Files.writeString(
                script,
                "'" + java + "' -cp '" + System.getProperty("java.class.path") + "' " + Perfpin.class.getName()
                        + " top " + pid + " --interval 200ms\necho EXITED $?\nsleep 60\n");
        tmux(socket, "new-session", "-d", "-s", "view", "-x", "120", "-y", "40", "sh " + script);
    }

    /** The pane's screen and history, once it shows {@code text}; fails after {@link #DEADLINE}. */
    private static String await(String socket, String text) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        String screen = "";
        while (System.nanoTime() < deadline) {
            screen = tmux(socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", "view");
            if (screen.contains(text)) {
                return screen;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the terminal never showed '" + text + "'; it shows:\n" + screen);
    }

    private static String tmux(String socket, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", socket));
        command.addAll(List.of(args));
        Process tmux = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(tmux.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(tmux.waitFor(10, TimeUnit.SECONDS), "tmux " + String.join(" ", args));
        if (!args[0].equals("kill-server")) {
            assertEquals(0, tmux.exitValue(), "tmux " + String.join(" ", args) + ": " + out);
        }
        return out;
    }
}
