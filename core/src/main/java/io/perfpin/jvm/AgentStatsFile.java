package io.perfpin.jvm;

import io.perfpin.PerfpinDirectory;
import io.perfpin.nativeio.FileStat;
import io.perfpin.stats.StatsFileBeingCreatedException;
import io.perfpin.stats.StatsFileName;
import io.perfpin.stats.StatsFileReader;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where the perfpin agent in a JVM keeps its stats file: the file of its name ({@link StatsFileName}: the pid the JVM
 * sees for itself, and its pid namespace) that the JVM has mapped, where its agent runs, wherever its options put it;
 * else as that agent finds it ({@link PerfpinDirectory}, run in the JVM itself): {@code -Dperfpin.dir} when the
 * JVM's command line or environment gives it, else {@code ${XDG_RUNTIME_DIR:-/tmp}/perfpin-<user>} from the JVM's own
 * environment and user (or its {@code ~/.cache/perfpin}
 * where another user took that name), then {@code jvms/} and the name. A file whose header names another process is refused
 * ({@link StatsFileOfAnotherProcessException}). A viewer's own environment may differ (a login
 * shell and a service of the same user, root and another user's JVM), and a JVM in a container has its own
 * {@code /tmp}, pids and users: the file is reached in the JVM's own namespace, as the JVM's user
 * ({@link TargetFiles}).
 *
 * <p>The JVM's name for its user ({@code user.name}) comes from its own user database, which perfpin does not read:
 * a file of the target's read by name could be anything its users made it (a FIFO bound over {@code /etc/passwd}
 * hung the reader). It is {@code -Duser.name} where the JVM was started with it; else the name of the directory of
 * the JVM's user's that holds a stats file for this pid, the name this machine gives the uid first where the JVM
 * shares this machine's users.
 */
public final class AgentStatsFile {
    private static final String PREFIX = "perfpin-";
    /** The directories of the JVM's uid looked into at most, each a step as that user. */
    private static final int MAX_CANDIDATES = 16;

    private AgentStatsFile() {}

    /** The stats file of JVM {@code pid}, as shown to the user: below {@code /proc/<pid>/root} for a container's. */
    public static Path of(long pid) {
        ProcStatus status;
        try {
            status = ProcStatus.ofProcess(pid);
        } catch (IOException gone) {
            return PerfpinDirectory.statsFile(pid);
        }
        try (TargetFiles files = TargetFiles.open(pid, status)) {
            return shown(pid, files, inTarget(pid, files));
        } catch (IOException e) {
            return PerfpinDirectory.statsFile(pid);
        }
    }

    /**
     * Opens the stats file of JVM {@code pid} as the JVM's user.
     *
     * @throws NoSuchFileException when it has none
     * @throws IOException         when it cannot be read, or is no stats file
     */
    public static StatsFileReader open(long pid) throws IOException {
        ProcStatus status;
        try {
            status = ProcStatus.ofProcess(pid);
        } catch (IOException gone) {
            throw new NoSuchFileException(PerfpinDirectory.statsFile(pid).toString());
        }
        try (TargetFiles files = TargetFiles.open(pid, status)) {
            String path = inTarget(pid, files);
            Path shown = shown(pid, files, path);
            FileChannel channel;
            try {
                channel = files.openForReading(path);
            } catch (NoSuchFileException e) {
                throw new NoSuchFileException(shown.toString());
            }
            StatsFileReader reader = StatsFileReader.open(channel, shown);
            try {
                requireWrittenBy(reader, pid, files.target(), shown);
            } catch (IOException e) {
                reader.close();
                throw e;
            }
            return reader;
        }
    }

    /**
     * As {@link #open}, for a JVM whose agent may have started a moment ago: an agent makes its stats file
     * {@link io.perfpin.registry.RegistryConfig#DEFERRED_DELAY} after it starts, later on a loaded machine, so this
     * waits while the file is not there or not yet whole, as long as {@code grace} and while the JVM runs.
     *
     * @throws NoSuchFileException             when it has none by then
     * @throws StatsFileBeingCreatedException when it is not whole by then
     * @throws IOException                     when it cannot be read, or is no stats file
     */
    public static StatsFileReader openOnceMade(long pid, Duration grace) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            try {
                return open(pid);
            } catch (NoSuchFileException | StatsFileBeingCreatedException notYet) {
                if (System.nanoTime() - deadline >= 0 || !JavaProcess.isRunning(pid)) {
                    throw notYet;
                }
                Thread.sleep(20);
            }
        }
    }

    /**
     * Refuses a file that another process wrote: its header must name the target's pid as the target sees it, its pid
     * namespace, and its start time (where the target has this process's clocks: a time namespace shifts it). A
     * header's 0 is a writer that could not tell (no {@code /proc} where it ran): not compared.
     */
    private static void requireWrittenBy(StatsFileReader reader, long pid, ProcStatus target, Path shown)
            throws StatsFileOfAnotherProcessException {
        long namespace = PidNamespace.of(pid);
        OptionalLong started = ThreadStartTime.of(pid, (int) pid);
        boolean samePid = reader.pid() == target.namespacePid();
        boolean sameNamespace = namespace == 0 || reader.pidNamespace() == 0 || reader.pidNamespace() == namespace;
        boolean sameStart = started.isEmpty()
                || reader.processStart() == 0
                || reader.processStart() == started.getAsLong()
                || !sharesClocks(pid);
        if (!samePid || !sameNamespace || !sameStart) {
            throw new StatsFileOfAnotherProcessException(shown + " was written by another process than " + pid
                    + " (pid " + reader.pid() + " of pid namespace " + reader.pidNamespace() + ", started at tick "
                    + reader.processStart() + "): perfpin shows no other JVM's counts as this one's");
        }
    }

    /** Whether process {@code pid} is in this process's time namespace (or the kernel has none: Linux before 5.6). */
    private static boolean sharesClocks(long pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/time"))
                    .equals(Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/time")));
        } catch (NoSuchFileException noTimeNamespaces) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether JVM {@code pid} has a stats file. */
    public static boolean exists(long pid) {
        try (StatsFileReader ignored = open(pid)) {
            return true;
        } catch (NoSuchFileException | StatsFileOfAnotherProcessException e) {
            return false;
        } catch (IOException e) {
            return true; // there, but damaged or still being created
        }
    }

    /**
     * The path of the stats file as the JVM names it: the one its agent has mapped now, where it runs; else where its
     * options and environment say the agent puts it.
     */
    private static String inTarget(long pid, TargetFiles files) throws IOException {
        String file = PerfpinDirectory.JVMS + "/"
                + new StatsFileName(files.target().namespacePid(), PidNamespace.of(pid)).name();
        // a running agent's, wherever its directory was set (-Dperfpin.dir in an @argfile or a -XX:Flags= file, which
        // its command line does not show); its header must name the process
        Optional<String> mapped = MappedFiles.ending(pid, "", "/" + file);
        if (mapped.isPresent() && regularFile(files, mapped.get())) {
            return mapped.get();
        }
        JvmOptions jvm = JvmOptions.of(pid);
        Optional<String> configured =
                jvm.systemProperty(PerfpinDirectory.PROPERTY).filter(dir -> !dir.isEmpty());
        if (configured.isPresent()) {
            // A relative one is below the JVM's working directory, as the kernel names it (a name, never followed).
            return (configured.get().startsWith("/") ? "" : files.workingDirectory() + "/") + configured.get() + "/"
                    + file;
        }
        String parent = jvm.environment("XDG_RUNTIME_DIR")
                .filter(dir -> dir.startsWith("/"))
                .orElse("/tmp");
        Optional<String> user = jvm.systemProperty("user.name");
        if (user.isPresent()) {
            return parent + "/" + PREFIX + user.get() + "/" + file;
        }
        String known = files.sharesUserNamespace() ? files.hostUserName().orElse(null) : null;
        String found = null;
        List<String> names = files.list(parent);
        int looked = 0;
        for (String name : names) {
            if (!name.startsWith(PREFIX) || name.startsWith(HotSpotAttach.AGENT_DIRECTORY_PREFIX)) {
                continue;
            }
            if (++looked > MAX_CANDIDATES) {
                break; // names made on purpose: a JVM's user has one perfpin directory
            }
            // not another user's perfpin directory, which the JVM's user cannot enter either
            if (regularFile(files, parent + "/" + name + "/" + file)
                    && (found == null || name.equals(PREFIX + known))) {
                found = name;
            }
        }
        if (found != null) {
            return parent + "/" + found + "/" + file;
        }
        Optional<String> fallback = ownedInHome(jvm, files, file);
        if (fallback.isPresent()) {
            return fallback.get();
        }
        return parent + "/" + PREFIX
                + (known != null ? known : Integer.toString(files.target().effectiveUid())) + "/" + file;
    }

    /** Whether {@code path}, walked in the target's root as its user, is a regular file of that user's. */
    private static boolean regularFile(TargetFiles files, String path) {
        try {
            Optional<FileStat> status = files.status(path);
            return status.isPresent()
                    && status.get().isRegularFile()
                    && status.get().uid() == files.target().effectiveUid();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The stats file in {@code ~/.cache/perfpin}, where the JVM's agent went when another user had taken its name in
     * {@code /tmp} ({@link PerfpinDirectory#base}): its home as its environment says, a file there of the JVM's user's.
     */
    private static Optional<String> ownedInHome(JvmOptions jvm, TargetFiles files, String file) {
        return jvm.systemProperty("user.home")
                .or(() -> jvm.environment("HOME"))
                .filter(home -> home.startsWith("/"))
                .map(home -> home + "/.cache/perfpin/" + file)
                .filter(path -> regularFile(files, path));
    }

    private static Path shown(long pid, TargetFiles files, String inTarget) {
        return files.sharesFileSystemView() ? Path.of(inTarget) : Path.of("/proc/" + pid + "/root" + inTarget);
    }
}
