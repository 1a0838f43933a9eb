package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Real processes, as the kernel shows them: a shell that execs another program, and one that exits. */
class ProcessIdentityTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    @Test
    void aProcessThatExecsAnotherProgramIsNoLongerTheOneChecked() throws Exception {
        Process shell = new ProcessBuilder("sh", "-c", "read line; exec sleep 60").start();
        try {
            ProcessIdentity checked = ProcessIdentity.of(shell.pid());
            assertDoesNotThrow(checked::check);
            Path exe = Files.readSymbolicLink(Path.of("/proc/" + shell.pid() + "/exe"));
            send(shell, "go");
            awaitThat(() -> !exe.equals(exeOf(shell.pid())));

            ProcessChangedException e = assertThrows(ProcessChangedException.class, checked::check);
            assertFalse(e.exited());
            assertEquals(
                    "process " + shell.pid() + " (sh) runs another program now (" + exeOf(shell.pid())
                            + "): it exec'd since perfpin checked it",
                    e.getMessage());
            assertEquals(checked.startTime(), ProcessIdentity.of(shell.pid()).startTime(), "an exec keeps it");
        } finally {
            shell.destroyForcibly().waitFor();
        }
    }

    /** What a pid that another process took after the one checked exited looks like. */
    @Test
    void anotherStartTimeIsAnotherProcess() throws Exception {
        Process shell = new ProcessBuilder("sh", "-c", "read line").start();
        try {
            ProcessIdentity now = ProcessIdentity.of(shell.pid());
            ProcessIdentity earlier =
                    new ProcessIdentity(now.pid(), "java", now.startTime() - 1, now.uids(), now.gids(), now.exe());
            ProcessChangedException e = assertThrows(ProcessChangedException.class, earlier::check);
            assertFalse(e.exited());
            assertEquals(
                    "process " + shell.pid() + " (java) exited, and pid " + shell.pid() + " names another"
                            + " process now (sh)",
                    e.getMessage());
        } finally {
            shell.destroyForcibly().waitFor();
        }
    }

    /** What a setuid program looks like after an exec: another effective uid. */
    @Test
    void otherCredentialsAreAnotherProcess() throws Exception {
        ProcessIdentity self = ProcessIdentity.of(ProcessHandle.current().pid());
        List<Integer> uids = List.of(
                self.uids().get(0),
                self.uids().get(1) + 1,
                self.uids().get(2),
                self.uids().get(3));
        ProcessIdentity earlier =
                new ProcessIdentity(self.pid(), self.command(), self.startTime(), uids, self.gids(), self.exe());
        ProcessChangedException e = assertThrows(ProcessChangedException.class, earlier::check);
        assertTrue(
                e.getMessage()
                        .startsWith("process " + self.pid() + " (" + self.command() + ") runs as other"
                                + " users now (uids " + self.uids().get(0) + " "),
                e.getMessage());
    }

    @Test
    void aProcessThatExitedHasExited() throws Exception {
        Process shell = new ProcessBuilder("true").start();
        ProcessIdentity checked;
        try {
            checked = ProcessIdentity.of(shell.pid());
        } catch (ProcessChangedException alreadyGone) {
            checked = new ProcessIdentity(shell.pid(), "true", 0, List.of(), List.of(), null);
        }
        assertTrue(shell.waitFor(30, TimeUnit.SECONDS));
        ProcessIdentity gone = checked;
        ProcessChangedException e = assertThrows(ProcessChangedException.class, gone::check);
        // Reaped, its pid is free; only a process that took it since would make it another's.
        assertTrue(e.exited() || e.getMessage().contains("names another process"), e.getMessage());
        assertEquals(
                ProcessChangedException.class,
                assertThrows(ProcessChangedException.class, () -> ProcessIdentity.of(Integer.MAX_VALUE))
                        .getClass());
    }

    private static void send(Process process, String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private static Path exeOf(long pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
        } catch (IOException e) {
            return Path.of("");
        }
    }

    private static void awaitThat(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 30 s");
            Thread.sleep(10);
        }
    }
}
