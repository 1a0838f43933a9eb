package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LauncherTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void badTokenIsOneLineAndExitCodeTwo() {
        assertEquals(Launcher.USAGE, launch("--round-trips=0"));
        assertEquals("PingPong: bad --round-trips '0': expected an integer from 1 to 100000000\n", text(err));
        assertEquals("", text(out));
    }

    @Test
    void unknownOptionIsRefusedBeforeAnythingRuns() {
        assertEquals(Launcher.USAGE, launch("--round-trips=1", "--rounds=5"));
        assertEquals(
                "PingPong: unknown option '--rounds': expected one of --help, --round-trips, --warmup, "
                        + "--annotated\n",
                text(err));
        assertEquals("", text(out));
    }

    @Test
    void helpListsTheOptions() {
        assertEquals(0, launch("--help"));
        String help = text(out);
        assertTrue(
                help.startsWith("usage: java io.perfpin.apps.PingPong [--help] [--round-trips N] [--warmup N] "
                        + "[--annotated]\n"),
                help);
        assertTrue(help.contains("--round-trips N"), help);
    }

    @Test
    void runPrintsOneResultLine() {
        assertEquals(0, launch("--round-trips", "50", "--warmup=0"));
        String printed = text(out);
        assertEquals(1, printed.lines().count(), printed);
        Map<String, String> result = ResultLine.parse(printed.strip());
        assertEquals("pingpong", result.get("workload"));
        assertEquals("50", result.get("round-trips"));
    }

    private int launch(String... args) {
        return Launcher.launch(
                PingPong.class,
                args,
                PingPong.Options::from,
                PingPong::run,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static String text(ByteArrayOutputStream stream) {
        return stream.toString(StandardCharsets.UTF_8);
    }
}
