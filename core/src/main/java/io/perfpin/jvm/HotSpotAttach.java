package io.perfpin.jvm;

import static io.perfpin.jvm.AttachException.Category.AGENT_LOAD_FAILED;
import static io.perfpin.jvm.AttachException.Category.ATTACH_REFUSED;
import static io.perfpin.jvm.AttachException.Category.NOT_A_JVM;
import static io.perfpin.jvm.AttachException.Category.NO_SUCH_PROCESS;
import static io.perfpin.jvm.AttachException.Category.PERMISSION_DENIED;

import io.perfpin.StopSignal;
import io.perfpin.files.ContentName;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.FileStat;
import io.perfpin.nativeio.PinWatchdog;
import io.perfpin.nativeio.UnixConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * HotSpot's dynamic attach protocol on Linux, spoken directly: no {@code jdk.attach} module (absent from
 * JREs and jlinked runtimes, and reached only through {@code --add-exports}), and a SIGQUIT only for a
 * process that handles it.
 *
 * <p>The protocol, as HotSpot serves it from JDK 6 to 25:
 * <ul>
 * <li>The JVM's "Attach Listener" thread listens on the Unix socket {@code /tmp/.java_pid<nspid>} of the
 * JVM's own mount namespace, {@code nspid} being the pid the JVM sees for itself. We reach it, and every other
 * file of the JVM's, as the JVM's user below {@code /proc/<pid>/root} ({@link TargetFiles}), so a JVM in a container
 * is reached from the host, and no link or file another user planted there is followed or opened.
 * <li>The listener starts lazily: a client creates the trigger file {@code .attach_pid<nspid>} in the
 * JVM's working directory or its {@code /tmp}, owned by the JVM's user or root, and sends SIGQUIT. The
 * JVM's Signal Dispatcher finds the trigger and starts the listener, instead of printing a thread dump.
 * A JVM killed outright leaves its socket behind with nobody listening; we remove it first, or it would
 * pass for the listener of the next JVM with that pid.
 * <li>The request is NUL-terminated UTF-8 strings: protocol version {@code 1}, the command, and exactly
 * three arguments. {@code jcmd} takes the whole command line as its first argument.
 * <li>The reply is the status in ASCII decimal and a line feed, then the command's output in modified
 * UTF-8, until the JVM closes the connection.
 * <li>The JVM serves a client only if the client's effective uid and gid are its own, or the uid is root. We
 * connect with the JVM's own uid and gid, which is also what a JVM in a user namespace, where root is nobody,
 * accepts.
 * </ul>
 *
 * <p>SIGQUIT's default action ends a process with a core dump. JDK 17's attach API and jattach send it to
 * whatever has the pid; like JDK 25's attach API, we first check the process catches it, and before that
 * that it maps {@code libjvm.so} (a Go program catches SIGQUIT too, and exits on it). Both are checked again just
 * before the signal, which goes through a pidfd taken with the process's start time ({@link TargetFiles#signal}).
 */
final class HotSpotAttach {
    private static final String PROTOCOL_VERSION = "1";
    /** A JVM starts its listener within milliseconds of the signal; this long, after one SIGQUIT, is a no. */
    static final Duration LISTENER_START = Duration.ofSeconds(2);

    private static final String DISABLED = "DisableAttachMechanism";
    private static final int SIGQUIT = 3;
    private static final long FIRST_NAP_MILLIS = 10;
    private static final long LONGEST_NAP_MILLIS = 200;
    /** How much of /proc/PID/maps is held at once while it is searched. */
    private static final int MAPS_BLOCK_BYTES = 64 * 1024;
    /** A dump of 100,000 threads is about 50 MB; a reply past this is a process that only pretends to be a JVM. */
    static final int MAX_REPLY_BYTES = 256 << 20;

    private HotSpotAttach() {}

    /**
     * Runs diagnostic command {@code command} (as {@code jcmd <pid> <command>} would) in JVM {@code pid}
     * and returns its output; the whole exchange, starting the listener included, takes {@code timeout} at
     * most.
     */
    static String jcmd(long pid, String command, Duration timeout) throws AttachException {
        return execute(
                pid, "jcmd", files -> List.of(command, "", ""), output -> output, "jcmd " + command, timeout, true);
    }

    /**
     * As {@link #jcmd}, through a listener that already runs: no trigger, no signal. A JVM can ask itself
     * this way (the agent, after a dynamic attach started the listener), where a SIGQUIT to a JVM whose
     * listener cannot start would print a thread dump on the application's output.
     *
     * @throws AttachException {@code NOT_A_JVM} when no listener runs
     */
    static String jcmdIfListening(long pid, String command, Duration timeout) throws AttachException {
        return execute(
                pid, "jcmd", files -> List.of(command, "", ""), output -> output, "jcmd " + command, timeout, false);
    }

    /**
     * Loads a Java agent into JVM {@code pid}, as {@code VirtualMachine.loadAgent} does: the JVM appends the
     * jar to its class path and calls its {@code agentmain} on the attach listener thread before it answers.
     * A JVM of this user's in this mount namespace and under this root gets {@code jar} itself; any other (one under
     * chroot(2) too) gets a copy of it in its own {@code /tmp}, made as its user ({@link #agentDirectory}), since the
     * path it opens is resolved in its own namespace, below its own root, with its own rights, where this user's files
     * may not be, or another user may have put a file under the same name.
     *
     * @throws AttachException {@code AGENT_LOAD_FAILED} when the JVM refuses or {@code agentmain} failed
     */
    static void loadAgent(long pid, Path jar, String options, Duration timeout) throws AttachException {
        String[] handed = new String[1];
        execute(
                pid,
                "load",
                files -> {
                    handed[0] = handedJar(files, jar);
                    return List.of(
                            "instrument",
                            "false",
                            options == null || options.isEmpty() ? handed[0] : handed[0] + "=" + options);
                },
                output -> loaded(pid, handed[0], output.strip()),
                "load of agent " + jar,
                timeout,
                true);
    }

    /** The JVM's answer to a load: JDK 9 to 20 say "return code: N", older and newer ones "N"; 0 is success. */
    private static String loaded(long pid, String handed, String reply) throws AttachException {
        String code = reply.startsWith("return code: ") ? reply.substring("return code: ".length()) : reply;
        if (!code.equals("0")) {
            throw new AttachException(
                    AGENT_LOAD_FAILED,
                    "process " + pid + " did not load the agent " + handed
                            + ": "
                            + (reply.isEmpty()
                                    ? "no answer"
                                    : reply.lines().findFirst().orElse(reply))
                            + "; the JVM's stderr says why (a JVM started with -XX:+DisableAttachMechanism or "
                            + "-XX:-EnableDynamicAgentLoading refuses agents)");
        }
        return reply;
    }

    /** The directory below the target's {@code /tmp} that holds the agent jars handed to its user's JVMs. */
    static String agentDirectory(int uid) {
        return AGENT_DIRECTORY_PREFIX + uid;
    }

    static final String AGENT_DIRECTORY_PREFIX = "perfpin-agent-";

    private static String handedJar(TargetFiles files, Path jar) throws AttachException {
        ProcStatus self = ProcStatus.ofSelf();
        if (files.sharesFileSystemView()
                && self.effectiveUid() == files.target().effectiveUid()
                && self.effectiveGid() == files.target().effectiveGid()) {
            return jar.toString();
        }
        try {
            byte[] content = Files.readAllBytes(jar);
            return files.install(
                    agentDirectory(files.target().effectiveUid()),
                    "perfpin-agent-" + ContentName.of(content) + ".jar",
                    content);
        } catch (IOException e) {
            throw new AttachException(
                    AGENT_LOAD_FAILED, "cannot hand the agent jar to " + files.process() + ": " + e.getMessage());
        }
    }

    /** What a request sends, once the target's files are at hand. */
    private interface Arguments {
        List<String> of(TargetFiles files) throws AttachException;
    }

    /** The command's output, checked: an output that says it failed throws. */
    private interface Answer {
        String of(String output) throws AttachException;
    }

    /**
     * One request of the attach protocol: a command and exactly three arguments. An attach that fails leaves the
     * target as it found it: what can refuse is asked before anything is made there, and what {@code arguments} made
     * there (the agent's copy) is removed, unless the JVM may still be reading it (the request sent, no answer yet).
     */
    private static String execute(
            long pid,
            String command,
            Arguments arguments,
            Answer answer,
            String what,
            Duration timeout,
            boolean mayStartListener)
            throws AttachException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ProcStatus target = status(pid);
        String process = "process " + pid + " (" + target.command() + ")";
        checkCredentials(process, target);
        checkHotSpot(pid, process, target);
        try (TargetFiles files = targetFiles(pid, process, target)) {
            if (mayStartListener) {
                refuseIfAttachDisabled(pid, process, files);
            }
            boolean inFlight = false;
            try {
                // Before connecting: the listener serves one connection at a time, and one left without a request
                // would hold it.
                List<String> request = arguments.of(files);
                UnixConnection connection = connect(pid, process, files, target, deadline, timeout, mayStartListener);
                String socket = files.shown(socketPath(target));
                inFlight = true;
                byte[] reply = exchange(process, socket, connection, request(command, request), deadline, timeout);
                inFlight = false;
                return answer.of(output(pid, process, what, reply));
            } catch (AttachException | RuntimeException e) {
                if (!inFlight) {
                    files.removeInstalled();
                }
                throw e;
            }
        }
    }

    /** The path of the JVM's attach socket, in its own mount namespace. */
    private static String socketPath(ProcStatus target) {
        return "/tmp/.java_pid" + target.namespacePid();
    }

    /** A connection to the JVM's attach listener, started first when it runs none and {@code mayStartListener}. */
    private static UnixConnection connect(
            long pid,
            String process,
            TargetFiles files,
            ProcStatus target,
            long deadline,
            Duration timeout,
            boolean mayStartListener)
            throws AttachException {
        String socket = socketPath(target);
        TargetFiles.Attempt attempt = connectIfListening(pid, process, files, socket, deadline);
        UnixConnection connection = attempt.connection();
        if (connection != null) {
            return connection;
        }
        if (!mayStartListener) {
            throw new AttachException(NOT_A_JVM, process + " runs no attach listener (no one attached to it yet)");
        }
        startListener(pid, process, files, socket, attempt.refused(), deadline, timeout);
        connection = connectIfListening(pid, process, files, socket, deadline).connection();
        if (connection == null) {
            throw new AttachException(
                    NOT_A_JVM,
                    process + " started its attach listener but refuses " + "connections to " + files.shown(socket));
        }
        return connection;
    }

    private static TargetFiles targetFiles(long pid, String process, ProcStatus target) throws AttachException {
        try {
            return TargetFiles.open(pid, target);
        } catch (IOException e) {
            throw gone(pid, process, e);
        }
    }

    static ProcStatus status(long pid) throws AttachException {
        if (pid > 0) {
            try {
                ProcStatus status = ProcStatus.ofProcess(pid);
                if (!status.zombie()) {
                    return status;
                }
            } catch (IOException e) {
                // every user may read the status of every process: it is gone
            }
        }
        throw new AttachException(NO_SUCH_PROCESS, "no process with pid " + pid);
    }

    static void checkCredentials(String process, ProcStatus target) throws AttachException {
        ProcStatus self = ProcStatus.ofSelf();
        boolean allowed = self.effectiveUid() == 0
                || self.effectiveUid() == target.effectiveUid() && self.effectiveGid() == target.effectiveGid();
        if (!allowed) {
            throw new AttachException(
                    PERMISSION_DENIED,
                    process + " runs as uid " + target.effectiveUid() + " gid "
                            + target.effectiveGid() + ", perfpin as uid " + self.effectiveUid() + " gid "
                            + self.effectiveGid() + ": a JVM lets only its own user and group, or root, attach");
        }
    }

    static void checkHotSpot(long pid, String process, ProcStatus status) throws AttachException {
        if (status.command().equals(PinWatchdog.PROCESS_NAME)) {
            // A fork of perfpin's own JVM that never called exec: it maps libjvm.so, but runs no Java.
            throw new AttachException(
                    NOT_A_JVM,
                    process + " is not a HotSpot JVM: it is the watchdog of a perfpin"
                            + " that pins threads, and runs no Java");
        }
        if (!mapsLibrary(pid, process, "libjvm.so")) {
            throw new AttachException(NOT_A_JVM, process + " is not a HotSpot JVM: it has no libjvm.so loaded");
        }
    }

    /** Whether the process maps a shared library of that file name. */
    static boolean mapsLibrary(long pid, String process, String library) throws AttachException {
        Path maps = Path.of("/proc/" + pid + "/maps");
        try (InputStream in = Files.newInputStream(maps)) {
            return holds(in, "/" + library);
        } catch (AccessDeniedException e) {
            throw new AttachException(PERMISSION_DENIED, "cannot read " + maps + ": permission denied");
        } catch (IOException e) {
            throw gone(pid, process, e);
        }
    }

    /**
     * Whether {@code in} holds {@code text}, read as ISO-8859-1 (mapped file names are bytes, and need not be UTF-8) a
     * block at a time, not a line: a JVM maps a thousand files, and stat looks first, in the interpreter. A block, not
     * the whole, since the target decides how long its maps are (65,530 mappings by default, each path up to 4 KiB);
     * each block begins with the end of the one before, where the text may have begun.
     */
    static boolean holds(InputStream in, String text) throws IOException {
        byte[] block = new byte[MAPS_BLOCK_BYTES];
        int kept = 0;
        for (int n; (n = in.read(block, kept, block.length - kept)) > 0; ) {
            int end = kept + n;
            if (new String(block, 0, end, StandardCharsets.ISO_8859_1).contains(text)) {
                return true;
            }
            kept = Math.min(text.length() - 1, end);
            System.arraycopy(block, end - kept, block, 0, kept);
        }
        return false;
    }

    /**
     * Starts the JVM's attach listener: one SIGQUIT, with a trigger it takes for a request to start it. {@code refused}
     * is the socket where nothing listened when perfpin connected, or null. A JVM that accepts no attach was refused
     * before ({@link #refuseIfAttachDisabled}), ahead of anything made in it.
     */
    private static void startListener(
            long pid,
            String process,
            TargetFiles files,
            String socket,
            FileStat refused,
            long deadline,
            Duration timeout)
            throws AttachException {
        if (!files.target().catchesQuit()) {
            // With -Xrs a JVM handles no SIGQUIT, but starts its listener at startup unless attach is disabled.
            throw new AttachException(
                    NOT_A_JVM,
                    process + " does not handle SIGQUIT, so its attach listener cannot "
                            + "be started (a JVM still starting, or one run with -Xrs and"
                            + " -XX:+DisableAttachMechanism)");
        }
        String socketName = socket.substring("/tmp/".length());
        // the socket that refused, where it stays: changed since, so not removed, until the listener's replaces it
        FileStat stale = null;
        try {
            // Nobody listened there: a JVM with this pid was killed before it could remove it. That socket alone is
            // removed: another tool may have started the listener since, whose socket is live.
            if (refused != null && !files.remove(false, "/tmp", socketName, refused)) {
                Optional<FileStat> there = files.status(socket);
                if (there.isPresent() && there.get().sameFileAs(refused)) {
                    stale = there.get();
                }
            }
        } catch (IOException e) {
            throw new AttachException(
                    NOT_A_JVM, "cannot remove the stale attach socket " + files.shown(socket) + ": " + e.getMessage());
        }
        StopSignal stop;
        try {
            // From before the trigger is made until it is removed: a JVM that exits (Ctrl-C, SIGTERM) halts once its
            // shutdown hooks return, with this thread wherever it is, so the exit waits for the finally below.
            stop = StopSignal.install();
        } catch (IllegalStateException exiting) {
            throw new AttachException(NOT_A_JVM, "perfpin is exiting: it did not signal " + process);
        }
        try (stop) {
            Trigger trigger = createTrigger(process, files);
            try {
                sendQuit(pid, process, files);
                awaitListener(pid, process, files, socket, stale, deadline, timeout, stop);
            } finally {
                if (trigger != null) {
                    try {
                        // Through the directory held open: also where the process died of the signal meanwhile.
                        files.remove(trigger.inWorkingDirectory, "/tmp", trigger.name, trigger.status);
                    } catch (IOException e) {
                        // left over, it only makes the JVM's next SIGQUIT start the listener
                    }
                }
            }
        }
    }

    /**
     * Waits, after the SIGQUIT, for the listener's socket at {@code socket} ({@link #listenerSocket}), until
     * {@link #LISTENER_START} or {@code deadline}, or until perfpin is stopped.
     */
    private static void awaitListener(
            long pid,
            String process,
            TargetFiles files,
            String socket,
            FileStat stale,
            long deadline,
            Duration timeout,
            StopSignal stop)
            throws AttachException {
        long nap = FIRST_NAP_MILLIS;
        long listening = Math.min(deadline, System.nanoTime() + LISTENER_START.toNanos());
        while (!listenerSocket(process, files, socket, stale)) {
            long left = listening - System.nanoTime();
            if (left <= 0) {
                // Never a second signal: a JVM that did not take the first as a trigger printed a thread dump.
                throw new AttachException(
                        ATTACH_REFUSED,
                        process + " did not start its attach listener within "
                                + Math.min(LISTENER_START.toMillis(), timeout.toMillis())
                                + " ms of one SIGQUIT: its"
                                + " attach mechanism is off, or it does not answer (stopped, or at a long"
                                + " safepoint)");
            }
            if (exited(pid)) {
                throw exitedMeanwhile(process);
            }
            nap(stop, Math.min(nap, TimeUnit.NANOSECONDS.toMillis(left) + 1));
            nap = Math.min(2 * nap, LONGEST_NAP_MILLIS);
        }
    }

    /**
     * Whether {@code path} holds a socket other than {@code stale}, the one that refused the connection where it was
     * left there (null otherwise), until the listener's own is renamed over it: while it is there, no new socket can
     * have its inode number. One that was removed can, and often does (tmpfs gives a freed number back at once).
     */
    private static boolean listenerSocket(String process, TargetFiles files, String path, FileStat stale)
            throws AttachException {
        try {
            Optional<FileStat> there = files.status(path);
            return there.isPresent() && (stale == null || !there.get().sameFileAs(stale));
        } catch (IOException e) {
            throw new AttachException(
                    NOT_A_JVM, "cannot look for the attach socket of " + process + ": " + e.getMessage());
        }
    }

    /** The trigger perfpin created, to remove afterwards: where, and which file, so that no other is removed. */
    private record Trigger(boolean inWorkingDirectory, String name, FileStat status) {}

    /**
     * Makes sure the JVM finds a trigger it accepts, as HotSpot looks for one: {@code .attach_pid<nspid>} in its
     * working directory, else in its {@code /tmp}, owned by the JVM's user or root (a trigger of anyone else's is
     * ignored, and the SIGQUIT then prints a thread dump). It is created as the JVM's user, so that a JVM in a user
     * namespace, where root is nobody, sees it as its own. Returns the trigger we created, to remove afterwards;
     * null when a valid one of another client's is there (it serves us too, and is theirs to remove).
     *
     * @throws AttachException ATTACH_REFUSED when another user's file is where the JVM looks first: it would
     *                         print a dump, and the file is not ours to remove
     */
    private static Trigger createTrigger(String process, TargetFiles files) throws AttachException {
        String name = ".attach_pid" + files.target().namespacePid();
        IOException failure = null;
        for (boolean inWorkingDirectory : new boolean[] {true, false}) {
            String where = inWorkingDirectory ? "its working directory" : "its /tmp";
            Optional<FileStat> existing;
            try {
                existing = files.status(inWorkingDirectory, "/tmp", name);
            } catch (IOException e) {
                failure = e;
                continue;
            }
            if (existing.isPresent()) {
                int owner = existing.get().uid();
                // root as the JVM sees it: in a user namespace of its own, its namespace's root, not this machine's
                if (owner == files.target().effectiveUid() || owner == files.namespaceRoot()) {
                    return null;
                }
                throw new AttachException(
                        ATTACH_REFUSED,
                        name + " in " + where + " belongs to uid " + owner
                                + ", so " + process
                                + " would ignore it and print a thread dump: no signal sent. Its owner"
                                + " (or root) must remove it");
            }
            try {
                if (files.create(inWorkingDirectory, "/tmp", name)) {
                    return new Trigger(
                            inWorkingDirectory,
                            name,
                            files.status(inWorkingDirectory, "/tmp", name)
                                    .orElseThrow(() -> new IOException(name + " vanished as it was created")));
                }
                return null; // another client's, created a moment ago
            } catch (IOException e) {
                failure = e;
            }
        }
        throw new AttachException(
                PERMISSION_DENIED,
                "cannot create the attach trigger " + name + " of " + process
                        + " in its working directory nor in its /tmp: " + failure.getMessage());
    }

    /**
     * Refuses, before any signal, a JVM that says it accepts no attach ({@link #attachDisabled}). Such a JVM would
     * print a thread dump on its output for every SIGQUIT and never start a listener. The advice fits the JVM: one
     * started with a Java agent already has what -javaagent: would give it.
     */
    private static void refuseIfAttachDisabled(long pid, String process, TargetFiles files) throws AttachException {
        if (attachDisabled(pid, files)) {
            throw new AttachException(
                    ATTACH_REFUSED,
                    process + " runs with -XX:+" + DISABLED + ": it accepts no attach (no agent, no thread dump). "
                            + (mapsLibrary(pid, process, "libinstrument.so")
                                    ? "The Java agent it was started with cannot be asked anything from outside and"
                                            + " runs until it exits; restart it without that flag to detach it"
                                    : "Start it with -javaagent: instead, or without that flag"));
        }
    }

    /** Whether JVM {@code pid} accepts no attach; see {@link AgentPresence#attachDisabled}. */
    static boolean attachDisabled(long pid) throws AttachException {
        ProcStatus target = status(pid);
        try (TargetFiles files = targetFiles(pid, "process " + pid + " (" + target.command() + ")", target)) {
            return attachDisabled(pid, files);
        }
    }

    /**
     * Whether the JVM says it accepts no attach: its hsperfdata file's capabilities, or, where it has none
     * ({@code -XX:-UsePerfData}), the options it was started with.
     */
    private static boolean attachDisabled(long pid, TargetFiles files) {
        Optional<Boolean> supported = PerfData.of(pid, files).flatMap(PerfData::attachSupported);
        return supported.isPresent()
                ? !supported.get()
                : JvmOptions.of(pid).lastFlag(DISABLED).orElse(false);
    }

    /**
     * One SIGQUIT to the JVM, whose status and maps are checked again first: since the checks before the trigger was
     * made, the process may have run another program (an exec keeps its pid and start time), one that SIGQUIT would
     * kill. It goes through the pidfd opened with the target's files, so a process that took the pid since the checks
     * gets nothing; where there is no pidfd (a kernel before Linux 5.3, or a seccomp filter that refuses the calls),
     * kill(1) sends it by pid, once the start time is checked again, and a process that takes the pid between that
     * check and the signal would get it.
     */
    private static void sendQuit(long pid, String process, TargetFiles files) throws AttachException {
        ProcStatus now = status(pid);
        if (!now.catchesQuit()) {
            throw new AttachException(
                    NOT_A_JVM, process + " no longer handles SIGQUIT (it runs another program?): no signal sent");
        }
        checkHotSpot(pid, process, now);
        int sent = files.signal(SIGQUIT);
        if (sent == 0) {
            return;
        }
        if (sent == -Errno.ESRCH) {
            throw exitedMeanwhile(process);
        }
        // Any other failure (ENOSYS, or EPERM from a seccomp filter older than pidfds) is sent by pid, as kill(1) says
        // whether this user may signal the process at all.
        if (!files.stillTheTarget()) {
            throw exitedMeanwhile(process);
        }
        try {
            Process kill = new ProcessBuilder("kill", "-QUIT", Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (kill.waitFor() == 0) {
                return;
            }
            // kill(2) fails with ESRCH when the process is gone, else with EPERM.
            if (exited(pid)) {
                throw exitedMeanwhile(process);
            }
            throw new AttachException(PERMISSION_DENIED, "kill -QUIT " + pid + " failed: " + said);
        } catch (IOException e) {
            throw new AttachException(NOT_A_JVM, "cannot run kill to signal " + process + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AttachException(NOT_A_JVM, "interrupted while signalling " + process);
        }
    }

    /**
     * Connects to the JVM's attach listener, as the JVM's user; no connection when it has none: no socket, or a
     * socket nobody listens on. The socket must be the JVM's user's: root must not take orders from anyone's file.
     */
    private static TargetFiles.Attempt connectIfListening(
            long pid, String process, TargetFiles files, String socket, long deadline) throws AttachException {
        try {
            return files.connect(socket, deadline);
        } catch (IOException e) {
            // A JVM that accepts no attach is said so first: what is at its socket's path is then beside the point,
            // such as a socket another user's JVM left there when it had this pid and was killed.
            refuseIfAttachDisabled(pid, process, files);
            throw new AttachException(NOT_A_JVM, "cannot connect to " + process + ": " + e.getMessage());
        }
    }

    private static byte[] request(String command, List<String> arguments) {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        List<String> strings = new ArrayList<>(List.of(PROTOCOL_VERSION, command));
        strings.addAll(arguments);
        for (String string : strings) {
            request.writeBytes(string.getBytes(StandardCharsets.UTF_8));
            request.write(0);
        }
        return request.toByteArray();
    }

    private static byte[] exchange(
            String process, String socket, UnixConnection connection, byte[] request, long deadline, Duration timeout)
            throws AttachException {
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        try (connection) {
            connection.send(request);
            byte[] in = new byte[64 * 1024];
            while (true) {
                int read = connection.receive(in, deadline);
                if (read < 0) {
                    return reply.toByteArray();
                }
                if (read == 0) {
                    throw new AttachException(
                            NOT_A_JVM,
                            process + " accepted the attach connection but did not answer within " + timeout.toMillis()
                                    + " ms");
                }
                if (reply.size() + read > MAX_REPLY_BYTES) {
                    throw new AttachException(
                            NOT_A_JVM,
                            process + " answered more than " + MAX_REPLY_BYTES
                                    + " bytes: no thread dump or agent load says that much");
                }
                reply.write(in, 0, read);
            }
        } catch (AttachException e) {
            throw e;
        } catch (IOException e) {
            throw new AttachException(
                    NOT_A_JVM, "cannot talk to " + process + " through " + socket + ": " + e.getMessage());
        }
    }

    /**
     * Splits a reply into its status line and output; a status other than 0 is the JVM's refusal. No reply at all is
     * a JVM that exited meanwhile, where it ends soon after.
     */
    private static String output(long pid, String process, String what, byte[] reply) throws AttachException {
        int newline = 0;
        while (newline < reply.length && reply[newline] != '\n') {
            newline++;
        }
        String status = new String(reply, 0, newline, StandardCharsets.US_ASCII).strip();
        int start = Math.min(newline + 1, reply.length);
        String output = ModifiedUtf8.decode(reply, start, reply.length - start);
        if (!status.equals("0")) {
            if (reply.length == 0 && exitsSoon(pid)) {
                throw exitedMeanwhile(process);
            }
            String detail = output.strip().lines().findFirst().orElse("no detail");
            throw new AttachException(
                    what.startsWith("load") ? AGENT_LOAD_FAILED : NOT_A_JVM,
                    reply.length == 0
                            ? process + " closed the attach connection without answering " + what
                            : process + " refused " + what + " (status " + status + "): " + detail);
        }
        return output;
    }

    /** How long a JVM that closed a connection unanswered is given to end: its exit, not a refusal. */
    private static final Duration EXIT_GRACE = Duration.ofSeconds(2);

    /** Whether {@code pid} ends within {@link #EXIT_GRACE}: a JVM that closes a connection as it exits. */
    private static boolean exitsSoon(long pid) {
        try {
            return JavaProcess.endsWithin(pid, EXIT_GRACE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false; // stopped: as a refusal, which it may have been
        }
    }

    /** The JVM ended while perfpin talked to it: its own exit code, whatever step met it. */
    static AttachException exitedMeanwhile(String process) {
        return new AttachException(NO_SUCH_PROCESS, process + " exited while perfpin attached");
    }

    static AttachException gone(long pid, String process, IOException e) {
        if (exited(pid)) {
            return exitedMeanwhile(process);
        }
        return new AttachException(NOT_A_JVM, "cannot inspect " + process + ": " + e.getMessage());
    }

    /** Gone, or a zombie: dead but not yet reaped by its parent. */
    static boolean exited(long pid) {
        try {
            return ProcStatus.ofProcess(pid).zombie();
        } catch (IOException e) {
            return true;
        }
    }

    private static void nap(StopSignal stop, long millis) throws AttachException {
        try {
            if (stop.await(Duration.ofMillis(millis))) {
                throw new AttachException(NOT_A_JVM, "stopped while waiting for the attach listener");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AttachException(NOT_A_JVM, "interrupted while waiting for the attach listener");
        }
    }
}
