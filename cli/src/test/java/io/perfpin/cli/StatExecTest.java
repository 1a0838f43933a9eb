package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Root runs {@code stat --pin} on another user's JVM, which then execs a setuid-root program: the exec keeps the
 * pinned thread's TID, start time and mask, and the program runs as root. However stat ends, by itself or by
 * SIGKILL (the watchdog), the program keeps the CPUs it had after the exec, nothing is restored onto it, and one
 * line says so.
 *
 * <p>The JVM is embedded by a small program of the test's ({@code JNI_CreateJavaVM} in its first thread), so that
 * the thread that execs is a Java thread of the dump, {@code main}, whose TID is the pid: the thread that the
 * exec'd program runs on. A {@code java} launcher runs main on another thread, which an exec would end.
 */
class StatExecTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final String WATCHDOG = "perfpin-pins";
    private static final String LAUNCHER = """
            #include <jni.h>
            #include <stdio.h>
            #include <unistd.h>

            /*
             * A JVM in this first thread, whose TID is the pid; at a line on stdin, execs argv[1] with its arguments.
             */
            int main(int argc, char **argv) {
                JavaVMInitArgs args = {.version = JNI_VERSION_10, .nOptions = 0, .options = NULL,
                                       .ignoreUnrecognized = JNI_FALSE};
                JavaVM *vm;
                JNIEnv *env;
                if (argc < 2 || JNI_CreateJavaVM(&vm, (void **) &env, &args) != JNI_OK) {
                    return 1;
                }
                printf("ready\\n");
                fflush(stdout);
                char line[64];
                if (read(0, line, sizeof(line)) <= 0) {
                    return 0;
                }
                execv(argv[1], argv + 1);
                perror("execv");
                return 127;
            }
            """;

    private Adversary adversary;
    /** Root's, readable by all: the launcher, and a setuid-root copy of sleep. */
    private Path work;

    private Path setuidSleep;
    private Path launcher;
    /** The JVMs started as the adversary, whose attach sockets outlive them: they exec without cleaning up. */
    private final List<Long> started = new ArrayList<>();

    @BeforeEach
    void build() throws Exception {
        adversary = Adversary.create();
        work = Files.createTempDirectory("perfpin-exec");
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        setuidSleep = work.resolve("sleep");
        Files.copy(Programs.onPath("sleep").orElseThrow(() -> new AssertionError("no sleep on the PATH")), setuidSleep);
        Files.setAttribute(setuidSleep, "unix:mode", 04755);
        Path source = Files.writeString(work.resolve("launcher.c"), LAUNCHER);
        launcher = work.resolve("launcher");
        Path javaHome = Paths.get(System.getProperty("java.home"));
        Path server = javaHome.resolve("lib/server");
        run(
                "cc",
                "-o",
                launcher.toString(),
                source.toString(),
                "-I" + javaHome.resolve("include"),
                "-I" + javaHome.resolve("include/linux"),
                "-L" + server,
                "-ljvm",
                "-Wl,-rpath," + server);
    }

    @AfterEach
    void clean() throws Exception {
        Adversary.removeAll(work);
        for (long pid : started) {
            // Left in /tmp, it would pose as the listener of a later JVM given the same pid, in another test.
            adversary.removeAttachSocket(pid);
        }
    }

    @Test
    void statThatSeesTheExecStopsAndLeavesTheSetuidProgramOnTheCpusItHas() throws Exception {
        try (ChildJvm jvm = startJvm()) {
            long pid = jvm.pid();
            try (ChildJvm stat = stat(pid, "--duration", "60s", "--interval", "1s")) {
                stat.await(pinned(pid));
                // Counting, once it has shown an interval: each look checks the process first.
                stat.await(Pattern.compile("--- .* perfpin stat  pid " + pid + " .*"));
                execSetuidSleep(jvm);
                String after = ProcFiles.cpusAllowed(pid, (int) pid);

                int code = stat.exitWithin(Duration.ofSeconds(60));
                List<String> said = new ArrayList<>(stat.lines());
                said.addAll(stat.rest());
                assertEquals(ExitCode.PROCESS_CHANGED, code, String.join("\n", said));
                String changed = Pattern.quote("process " + pid + " (launcher) runs another program now (" + setuidSleep
                        + "): it exec'd since perfpin checked it");
                assertTrue(
                        said.stream()
                                .anyMatch(l -> l.matches("perfpin stat: " + changed + "; its counts end at"
                                        + " the last read before, and perfpin leaves it alone")),
                        String.join("\n", said));
                assertTrue(
                        said.stream()
                                .anyMatch(l -> l.matches(
                                        "perfpin: left thread 'main' \\(tid " + pid + "\\) alone: " + changed)),
                        String.join("\n", said));
                assertEquals(after, ProcFiles.cpusAllowed(pid, (int) pid), "what it had after the exec");
            }
        }
    }

    @Test
    void theWatchdogOfAKilledStatLeavesTheSetuidProgramOnTheCpusItHas() throws Exception {
        try (ChildJvm jvm = startJvm()) {
            long pid = jvm.pid();
            try (ChildJvm stat = stat(pid, "--duration", "60s")) {
                stat.await(pinned(pid));
                long watchdog = StatPinRestoreTest.watchdogOf(stat);
                // Stopped, stat checks nothing more: the watchdog, in a session of its own, meets the exec first.
                stat.signal("STOP");
                awaitThat(() -> stopped(stat.pid()), () -> "perfpin stat (pid " + stat.pid() + ") does not stop");
                execSetuidSleep(jvm);
                String after = ProcFiles.cpusAllowed(pid, (int) pid);
                stat.signal("KILL");
                stat.exitWithin(Duration.ofSeconds(60));

                awaitThat(() -> exited(watchdog), () -> "the watchdog (pid " + watchdog + ") still runs");
                // The watchdog kept stat's standard error, and has closed it by exiting.
                List<String> rest = stat.rest();
                assertEquals(
                        List.of("perfpin: left thread (tid " + pid + ") of process " + pid + " alone: the"
                                + " process exec'd another program since perfpin pinned it"),
                        rest);
                assertEquals(after, ProcFiles.cpusAllowed(pid, (int) pid), "what it had after the exec");
            }
        }
    }

    /** The launcher as the other user, in /tmp (where its JVM's attach trigger file may go). */
    private ChildJvm startJvm() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(adversary.launcher());
        command.addAll(List.of(launcher.toString(), setuidSleep.toString(), "120"));
        ChildJvm jvm = ChildJvm.startCommand(command);
        started.add(jvm.pid());
        try {
            jvm.await(Pattern.compile("ready"));
            return jvm;
        } catch (RuntimeException | Error e) {
            jvm.close();
            throw e;
        }
    }

    private static ChildJvm stat(long pid, String... more) throws IOException {
        List<String> args =
                new ArrayList<>(List.of("stat", Long.toString(pid), "--threads", "main", "--pin", "main@0"));
        args.addAll(List.of(more));
        return ChildJvm.startWith(List.of(), "io.perfpin.cli.Perfpin", args.toArray(new String[0]));
    }

    private static Pattern pinned(long pid) {
        assumeTrue(ProcFiles.cpusAllowed(pid, (int) pid).matches("0[-,].*"), "needs CPU 0 and another");
        return Pattern.compile("perfpin stat: pinned 'main' \\(tid " + pid + "\\) to CPU 0 .*");
    }

    /** The program runs as root once it has exec'd, on the CPUs the JVM's thread had: those of the pin. */
    private void execSetuidSleep(ChildJvm jvm) throws Exception {
        long pid = jvm.pid();
        jvm.send("exec");
        awaitThat(() -> setuidSleep.toString().equals(exe(pid)), () -> "process " + pid + " runs " + exe(pid));
        assumeTrue(
                ProcFiles.statusField(pid, "Uid").matches(adversary.uid + "\\s+0\\s+0\\s+0"),
                "setuid programs run as their owner here: " + ProcFiles.statusField(pid, "Uid"));
        assertEquals("0", ProcFiles.cpusAllowed(pid, (int) pid), "an exec keeps the mask");
    }

    private static String exe(long pid) {
        try {
            return Files.readSymbolicLink(Paths.get("/proc/" + pid + "/exe")).toString();
        } catch (IOException e) {
            return "";
        }
    }

    /** Whether every thread of the process is stopped by a signal ({@code T} in its stat file). */
    private static boolean stopped(long pid) {
        try (Stream<Path> tasks = Files.list(Paths.get("/proc/" + pid + "/task"))) {
            return tasks.allMatch(task -> {
                try {
                    String stat = Files.readAllLines(task.resolve("stat")).get(0);
                    return stat.substring(stat.lastIndexOf(") ") + 2).startsWith("T");
                } catch (IOException ended) {
                    return true;
                }
            });
        } catch (IOException e) {
            return false;
        }
    }

    /** Gone, or a zombie that init has yet to reap; a process that took its pid since has another name. */
    private static boolean exited(long watchdog) {
        List<String> stat = ProcFiles.statFields(watchdog);
        return stat.isEmpty() || stat.get(0).equals("Z") || !WATCHDOG.equals(ProcFiles.command(watchdog));
    }

    private static void run(String... command) throws IOException, InterruptedException {
        TestJvm.program(command).mergeStderr().run(Duration.ofSeconds(120));
    }

    private static void awaitThat(BooleanSupplier condition, Supplier<String> failure) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, failure);
            Thread.sleep(10);
        }
    }
}
