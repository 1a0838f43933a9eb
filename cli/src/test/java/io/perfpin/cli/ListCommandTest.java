package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.PinWatchdog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListCommandTest {

    @Test
    void listsThisUsersJvmsWithTheirMainClassAndWhetherTheAgentIsActive() throws Exception {
        try (ChildJvm plain = ChildJvm.start("io.perfpin.apps.Service", "1", "60");
                ChildJvm counted = ChildJvm.start(RegistryChild.class.getName(), "default", "-", "1")) {
            try {
                plain.await(Pattern.compile("ready"));
                counted.await(ReportCommandTest.TOUCHED);

                CliRun run = CliRun.capture(() -> Perfpin.run("list"));
                assertEquals(ExitCode.OK, run.code, run.err);
                assertTrue(run.out.matches("(?s) *pid +main +agent\n.*"), run.out); // pid's width is the widest pid's
                assertEquals("io.perfpin.apps.Service  no", row(run.out, plain.pid()));
                assertEquals(RegistryChild.class.getName() + "  yes (every 50 ms)", row(run.out, counted.pid()));
                assertTrue(!run.out.contains(" " + ProcessHandle.current().pid() + "  "), "not itself: " + run.out);

                counted.send("end");
                counted.await(Pattern.compile("closed"));
                CliRun after = CliRun.capture(() -> Perfpin.run("list"));
                assertEquals(
                        RegistryChild.class.getName() + "  no (closed: the agent detached)",
                        row(after.out, counted.pid()));
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(counted.pid()));
            }
        }
    }

    /**
     * A JVM names where its stats file is, and so what the agent column quotes: a name with escape sequences shows
     * them escaped, never as a terminal would act on them.
     */
    @Test
    void anAgentColumnQuotingAJvmsOwnPathShowsItEscaped(@TempDir Path dir) throws Exception {
        Path hostile = dir.resolve("x\u001b]0;PWNED\u0007\u001b[31mX");
        try (ChildJvm junk = ChildJvm.startWith(List.of("-Dperfpin.dir=" + hostile), JunkStatsChild.class.getName())) {
            junk.await(Pattern.compile("ready"));
            CliRun list = CliRun.capture(() -> Perfpin.run("list"));
            assertEquals(ExitCode.OK, list.code, list.err);
            String row = row(list.out, junk.pid());
            assertTrue(row.contains("  no ("), row); // its main class cut to fit beside the long path
            assertTrue(row.contains("x\\x1b]0;PWNED\\x07\\x1b[31mX"), row);
            assertFalse(list.out.chars().anyMatch(c -> c < 0x20 && c != '\n'), list.out);
        }
    }

    /** It maps libjvm.so, as the JVM it was forked from, but runs no Java: neither listed nor signalled. */
    @Test
    void aPinWatchdogIsNoJvm() {
        try (PinWatchdog watchdog = PinWatchdog.start(Backends.syscalls())) {
            CliRun list = CliRun.capture(() -> Perfpin.run("list"));
            assertEquals(ExitCode.OK, list.code, list.err);
            assertFalse(list.out.matches("(?s)(.*\n)? *" + watchdog.pid() + "  .*"), list.out);

            CliRun stat = CliRun.capture(() -> Perfpin.run("stat", "--pid", Integer.toString(watchdog.pid())));
            assertEquals(ExitCode.NOT_A_JVM, stat.code, stat.err);
            assertEquals(
                    "perfpin stat: process " + watchdog.pid() + " (perfpin-pins) is not a HotSpot JVM: it is the"
                            + " watchdog of a perfpin that pins threads, and runs no Java\n",
                    stat.err);
        }
    }

    /** The main and agent columns of a pid's row, padding squeezed to two spaces. */
    private static String row(String out, long pid) {
        Matcher m = Pattern.compile("(?m)^ *" + pid + "  (.*)$").matcher(out);
        assertTrue(m.find(), pid + " in\n" + out);
        return m.group(1).strip().replaceAll(" {2,}", "  ");
    }
}
