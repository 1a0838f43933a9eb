package io.perfpin.jvm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * A running HotSpot JVM as {@code /proc} shows it: its pid and its command line, from which its main class.
 * A process is taken for a JVM when it maps {@code libjvm.so}, as the attach code checks before it signals.
 */
public final class JavaProcess {
    /** Launcher options whose value is the next argument ({@code java --help}, JDK 17 to 25). */
    private static final Set<String> OPTIONS_WITH_VALUE = Set.of(
            "-cp",
            "-classpath",
            "--class-path",
            "-p",
            "--module-path",
            "--upgrade-module-path",
            "--add-modules",
            "--limit-modules",
            "--add-reads",
            "--add-exports",
            "--add-opens",
            "--patch-module",
            "--enable-native-access",
            "--source");

    private final long pid;
    private final int effectiveUid;
    private final List<String> commandLine;

    private JavaProcess(long pid, int effectiveUid, List<String> commandLine) {
        this.pid = pid;
        this.effectiveUid = effectiveUid;
        this.commandLine = List.copyOf(commandLine);
    }

    /**
     * The JVM with this pid, when perfpin may observe it.
     *
     * @throws AttachException NO_SUCH_PROCESS, PERMISSION_DENIED (another user's, perfpin not being root) or
     *                         NOT_A_JVM, with the message the attach code gives
     */
    public static JavaProcess of(long pid) throws AttachException {
        ProcStatus status = HotSpotAttach.status(pid);
        String process = "process " + pid + " (" + status.command() + ")";
        HotSpotAttach.checkCredentials(process, status);
        HotSpotAttach.checkHotSpot(pid, process, status);
        try {
            return new JavaProcess(pid, status.effectiveUid(), commandLineOf(pid));
        } catch (IOException e) {
            throw HotSpotAttach.gone(pid, process, e);
        }
    }

    /** The JVMs that run as this user (effective uid), by pid; processes that end meanwhile are left out. */
    public static List<JavaProcess> ofCurrentUser() throws IOException {
        int uid = ProcStatus.ofSelf().effectiveUid();
        List<JavaProcess> jvms = new ArrayList<>();
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), p -> isPid(p.getFileName()))) {
            for (Path dir : proc) {
                long pid = Long.parseLong(dir.getFileName().toString());
                try {
                    ProcStatus status = ProcStatus.ofProcess(pid);
                    if (status.effectiveUid() == uid && !status.zombie()) {
                        HotSpotAttach.checkHotSpot(pid, "process " + pid, status);
                        jvms.add(new JavaProcess(pid, uid, commandLineOf(pid)));
                    }
                } catch (IOException notAJvmOrGone) {
                    // AttachException included: only the JVMs still there are listed
                }
            }
        }
        jvms.sort(Comparator.comparingLong(JavaProcess::pid));
        return jvms;
    }

    /** Whether process {@code pid} still runs: it exists and is no zombie (dead, not yet reaped). */
    public static boolean isRunning(long pid) {
        return !HotSpotAttach.exited(pid);
    }

    /** Whether process {@code pid} ends (or is a zombie) within {@code within}, looked at every 10 ms. */
    public static boolean endsWithin(long pid, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (isRunning(pid)) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    public long pid() {
        return pid;
    }

    /** The user the JVM runs as: whoever must be able to read an agent jar handed to it. */
    public int effectiveUid() {
        return effectiveUid;
    }

    /** The arguments as the process was started with them, the launcher first. */
    public List<String> commandLine() {
        return commandLine;
    }

    /** What the JVM runs: the main class, {@code module/class}, or the jar; see {@link #mainClassOf}. */
    public String mainClass() {
        return mainClassOf(commandLine);
    }

    /**
     * The main class in a {@code java} command line: the argument of {@code -jar}, {@code -m} or
     * {@code --module}, else the first argument after the launcher's options (skipping the value of options
     * such as {@code -cp X}, and {@code @argfiles}, whose content /proc does not show). For a program that
     * embeds a JVM without naming a class (jshell, an IDE), the program's name in parentheses.
     */
    public static String mainClassOf(List<String> commandLine) {
        for (int i = 1; i < commandLine.size(); i++) {
            String arg = commandLine.get(i);
            boolean last = i == commandLine.size() - 1;
            if ((arg.equals("-jar") || arg.equals("-m") || arg.equals("--module")) && !last) {
                return commandLine.get(i + 1);
            }
            if (arg.startsWith("--module=")) {
                return arg.substring("--module=".length());
            }
            if (OPTIONS_WITH_VALUE.contains(arg)) {
                i++;
            } else if (!arg.startsWith("-") && !arg.startsWith("@")) {
                return arg;
            }
        }
        String launcher = commandLine.isEmpty() ? "" : commandLine.get(0);
        return "(" + launcher.substring(launcher.lastIndexOf('/') + 1) + ")";
    }

    private static boolean isPid(Path name) {
        String s = name.toString();
        return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
    }

    /** NUL-separated arguments, read as a stream: /proc reports a size of 0. */
    private static List<String> commandLineOf(long pid) throws IOException {
        try (InputStream in = Files.newInputStream(Path.of("/proc/" + pid + "/cmdline"))) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return text.isEmpty() ? List.of() : Arrays.asList(text.split("\0"));
        }
    }
}
