package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The attach trigger {@code .attach_pid<pid>} that perfpin makes in a JVM's working directory is gone however perfpin
 * ends: a SIGTERM while it waits for the listener of a JVM that does not answer still removes it before perfpin exits.
 */
class AttachTriggerTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    @Test
    void aStatEndedBySigtermWhileTheListenerStartsRemovesItsTrigger() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            long pid = service.pid();
            Path trigger = Path.of("/proc/" + pid + "/cwd/.attach_pid" + pid);
            assertFalse(Files.exists(trigger), trigger + " is there before perfpin");
            service.signal("STOP");
            try (ChildJvm stat = ChildJvm.start("io.perfpin.cli.Perfpin", "stat", Long.toString(pid))) {
                // A JVM that is stopped starts no listener: perfpin waits up to 2 s, its trigger there.
                long deadline = System.nanoTime() + WAIT_NANOS;
                while (!Files.exists(trigger)) {
                    assertTrue(System.nanoTime() < deadline, "perfpin stat made no trigger: " + stat.lines());
                    Thread.sleep(1);
                }
                stat.signal("TERM");
                stat.awaitExit();
                assertFalse(Files.exists(trigger), "the trigger is left after perfpin exited: " + stat.lines());
            } finally {
                service.signal("CONT");
            }
        }
    }
}
