package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.PinWatchdog;
import java.nio.file.Files;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

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
