package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
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
 * width, {@code s} sorts by the next column, {@code p} pauses and goes on, {@code q} quits with the totals.
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
            Path script = dir.resolve("top.sh");
            String java =
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            Files.writeString(
                    script,
                    "'" + java + "' -cp '" + System.getProperty("java.class.path") + "' "
                            + Perfpin.class.getName() + " top " + service.pid() + " --interval 200ms\necho EXITED $?\n"
                            + "sleep 60\n");
            try {
                tmux(socket, "new-session", "-d", "-s", "view", "-x", "120", "-y", "40", "sh " + script);
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
