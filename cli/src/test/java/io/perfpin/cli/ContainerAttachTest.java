package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.files.ContentName;
import io.perfpin.files.NotARegularFileException;
import io.perfpin.jvm.AgentJar;
import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.stats.NotAStatsFileException;
import io.perfpin.testkit.PerfEventDescriptors;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Root attaches to JVMs of another user's that live in namespaces of their own, as containers do, while a third
 * user plants what it can where they look: the JVM is attached, counted, pinned and detached, and nothing planted
 * ever runs or is read.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ContainerAttachTest {
    private static final Pattern WORKER = Pattern.compile("thread (worker-0) tid (\\d+)");
    /** The third user: root gives files to any uid, and setpriv acts as it. */
    private static final int NOBODY = 65534;

    private Adversary victim;
    /** Outside /tmp, which the JVMs here replace: the class path they run from, the marker a planted agent makes. */
    private Path work;

    private Path marker;
    private String classPath;

    @BeforeEach
    void prepare() throws Exception {
        victim = Adversary.create();
        assumeTrue(run(List.of("unshare", "-m", "true")).startsWith("0"), "cannot make mount namespaces here");
        work = Files.createTempDirectory(Paths.get("/var/tmp"), "perfpin-ns");
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        classPath = Adversary.readableCopy(
                ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                Files.createDirectory(work.resolve("cp")));
        Path markers = Files.createDirectory(work.resolve("markers"));
        Files.setPosixFilePermissions(markers, PosixFilePermissions.fromString("rwxrwxrwx"));
        marker = markers.resolve("planted-agent-ran");
    }

    @AfterEach
    void clean() throws Exception {
        Adversary.removeAll(work);
    }

    /**
     * The victim's JVM has its own mount namespace with a sticky tmpfs {@code /tmp}, where a third user made the
     * directory perfpin hands agent jars from, with a jar of the very name: refused in one line, the planted jar never
     * runs. Once it is gone, attach works there: the jar is the victim's own, 0600 in a 0700 directory, the worker is
     * pinned and counted, and the detach gives back its CPUs and every descriptor.
     */
    @Test
    void aJvmInItsOwnMountNamespaceIsAttachedAndAJarPlantedInItsTmpNeverRuns() throws Exception {
        List<String> launcher = victimWithTmpOfItsOwn();
        try (ChildJvm jvm =
                ChildJvm.startUnder(launcher, classPath, List.of(), "io.perfpin.apps.Service", "1", "120")) {
            Matcher worker = jvm.await(WORKER);
            int tid = Integer.parseInt(worker.group(2));
            jvm.await(Pattern.compile("ready"));
            String pid = Long.toString(jvm.pid());
            byte[] agent = Files.readAllBytes(AgentJar.forThisUser());
            String dir = "/tmp/perfpin-agent-" + victim.uid;
            String jar = dir + "/perfpin-agent-" + ContentName.of(agent) + ".jar";
            Path planted = plantedAgentJar(marker.toString());
            inNamespace(
                    jvm.pid(),
                    NOBODY,
                    "mkdir -m 755 " + dir + " && cp " + planted + " " + jar + " && chmod 644 " + jar);

            CliRun refused = CliRun.capture(
                    () -> Perfpin.run("attach", pid, "--threads", "worker-.*", "--duration", "1s", "--detach-on-exit"));
            assertEquals(ExitCode.ATTACH_FAILED, refused.code, refused.out + refused.err);
            assertTrue(
                    refused.err.contains(dir + " of process " + pid + " (java) belongs to uid " + NOBODY), refused.err);
            assertEquals(1, refused.err.lines().count(), refused.err);
            assertFalse(Files.exists(marker), "the planted agent ran");
            assertEquals(
                    NOBODY + " 755",
                    inNamespace(jvm.pid(), 0, "stat -c '%u %a' " + dir).strip(),
                    "what was planted is left as it was");

            inNamespace(jvm.pid(), 0, "rm -r " + dir);
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@1",
                    "--interval",
                    "100ms",
                    // Long enough for the agent to take in the running worker on a loaded machine: its row is the
                    // check, and the view shows it from the agent's first sample on.
                    "--duration",
                    "5s",
                    "--detach-on-exit"));
            assertEquals(0, attach.code, attach.out + attach.err);
            assertTrue(attach.out.matches("(?s).*\nworker-0 +" + tid + " +1 .*"), "pinned to CPU 1:\n" + attach.out);
            assertEquals(
                    victim.uid + " 700\n" + victim.uid + " 600\n",
                    inNamespace(jvm.pid(), 0, "stat -c '%u %a' " + dir + " " + jar),
                    "the victim's own copy, which no one else may replace");
            assertEquals("0-1", ProcFiles.cpusAllowed(jvm.pid(), tid), "its CPUs given back at the detach");
            assertEquals(0, PerfEventDescriptors.of(jvm.pid()));
            assertFalse(Files.exists(marker), "the planted agent ran");
        }
    }

    /**
     * JVMs of another user's, each with a {@code /tmp} of its own, that attach fails on leave it as it was: one started
     * with {@code -XX:+DisableAttachMechanism} is refused before anything is made there; one that does not answer (it
     * is stopped) gets no agent, and its copy of the agent jar, made before the signal, and the trigger are removed.
     */
    @Test
    void aFailedAttachLeavesTheJvmsTmpAsItWas() throws Exception {
        List<String> launcher = victimWithTmpOfItsOwn();
        try (ChildJvm disabled = ChildJvm.startUnder(
                        launcher,
                        classPath,
                        List.of("-XX:+DisableAttachMechanism"),
                        "io.perfpin.apps.Service",
                        "1",
                        "120");
                ChildJvm stopped =
                        ChildJvm.startUnder(launcher, classPath, List.of(), "io.perfpin.apps.Service", "1", "120")) {
            disabled.await(Pattern.compile("ready"));
            stopped.await(Pattern.compile("ready"));
            String before = inNamespace(disabled.pid(), 0, "ls -A /tmp");
            CliRun refused = CliRun.capture(() -> Perfpin.run("attach", Long.toString(disabled.pid())));
            assertEquals(ExitCode.ATTACH_FAILED, refused.code, refused.out + refused.err);
            assertEquals(before, inNamespace(disabled.pid(), 0, "ls -A /tmp"), refused.err);

            before = inNamespace(stopped.pid(), 0, "ls -A /tmp");
            stopped.signal("STOP");
            try {
                CliRun unanswered = CliRun.capture(() -> Perfpin.run("attach", Long.toString(stopped.pid())));
                assertEquals(ExitCode.ATTACH_FAILED, unanswered.code, unanswered.out + unanswered.err);
                assertEquals(before, inNamespace(stopped.pid(), 0, "ls -A /tmp"), unanswered.err);
            } finally {
                stopped.signal("CONT");
            }
        }
    }

    /**
     * Root's own JVM under chroot(2), in root's mount namespace, whose root is another directory, where someone
     * planted a jar at the very path of root's private agent jar: the JVM would open that path below its own root, so
     * it is handed a copy that perfpin made in the JVM's own {@code /tmp}, and the planted jar never runs.
     */
    @Test
    void aJvmUnderChrootIsHandedACopyInItsOwnTmpAndAJarPlantedAtPerfpinsPathNeverRuns() throws Exception {
        Path jail = work.resolve("jail");
        String home = System.getProperty("java.home");
        // The JDK and the libraries it needs, hard links (no copy) where /var/tmp shares their file system. The
        // launcher finds libjli by $ORIGIN, which needs a /proc the jail lacks: LD_LIBRARY_PATH says where it is.
        String out = run(List.of(
                "sh",
                "-ec",
                "mkdir -p \"$1/tmp\" \"$1$(dirname \"$2\")\" && chmod 1777 \"$1/tmp\""
                        + " && { cp -rlL \"$2\" \"$1$2\" 2>/dev/null || true; }"
                        + " && test \"$1$2/lib/server/libjvm.so\" -ef \"$2/lib/server/libjvm.so\""
                        + " && for f in $(ldd \"$2/bin/java\" \"$2\"/lib/*.so \"$2/lib/server/libjvm.so\""
                        + " | awk '/=> \\//{print $3} /^\\t\\//{print $1}' | sort -u); do"
                        + " test -e \"$1$f\" || { mkdir -p \"$1$(dirname $f)\" && ln \"$(readlink -f $f)\" \"$1$f\"; };"
                        + " done",
                "sh",
                jail.toString(),
                home));
        assumeTrue(out.startsWith("0"), "cannot hard-link the JDK into a chroot here: " + out);
        String jailedClassPath = Adversary.readableCopy(classPath, Files.createDirectory(jail.resolve("cp")))
                .replace(jail.toString(), "");
        Path hostJar = AgentJar.forThisUser();
        Path planted = jail.resolve(hostJar.toString().substring(1));
        Files.createDirectories(planted.getParent());
        Files.copy(plantedAgentJar("/planted-agent-ran"), planted);
        List<String> launcher = List.of("env", "LD_LIBRARY_PATH=" + home + "/lib", "chroot", jail.toString());
        try (ChildJvm jvm =
                ChildJvm.startUnder(launcher, jailedClassPath, List.of(), "io.perfpin.apps.Service", "1", "120")) {
            jvm.await(Pattern.compile("ready"));

            CliRun attach = CliRun.capture(
                    () -> Perfpin.run("attach", Long.toString(jvm.pid()), "--duration", "1s", "--detach-on-exit"));

            assertFalse(Files.exists(jail.resolve("planted-agent-ran")), "the planted agent ran:\n" + attach.err);
            Path copy = jail.resolve(
                    "tmp/perfpin-agent-0/perfpin-agent-" + ContentName.of(Files.readAllBytes(hostJar)) + ".jar");
            assertEquals(
                    "0 700\n0 600\n",
                    run(List.of("stat", "-c", "%u %a", copy.getParent().toString(), copy.toString()))
                            .substring(2),
                    "the JVM was handed perfpin's copy in its own /tmp:\n" + attach.err);
        }
    }

    /**
     * A user's JVM in a user namespace of its own (root inside, the user outside), who then binds a FIFO over its
     * {@code /etc/passwd}: root's attach reads no file of the target's by name, so it neither waits on the FIFO nor
     * needs the JVM's name for its user, and the JVM, which serves only its own uid, takes root's connection
     * made with that uid. The worker is pinned, counted, and given back its CPUs at the detach.
     */
    @Test
    void aJvmInItsOwnUserNamespaceWithAFifoOverItsPasswdIsAttachedPinnedAndDetached() throws Exception {
        assumeTrue(victim.can("unshare -Urm true"), "unprivileged user namespaces are off here");
        List<String> launcher = victim.asThisUser(
                "unshare", "-Urm", "sh", "-c", "mount -t tmpfs tmpfs /tmp && cd /tmp && exec \"$@\"", "sh");
        try (ChildJvm jvm =
                ChildJvm.startUnder(launcher, classPath, List.of(), "io.perfpin.apps.Service", "1", "120")) {
            Matcher worker = jvm.await(WORKER);
            int tid = Integer.parseInt(worker.group(2));
            jvm.await(Pattern.compile("ready"));
            String pid = Long.toString(jvm.pid());
            // As the victim, who owns that user namespace and so may mount in it.
            String out = run(victim.asThisUser(
                    "nsenter",
                    "-t",
                    pid,
                    "-U",
                    "-m",
                    "--preserve-credentials",
                    "sh",
                    "-c",
                    "mkfifo /tmp/passwd && mount --bind /tmp/passwd /etc/passwd && test -p /etc/passwd"));
            assumeTrue(out.startsWith("0"), "cannot bind a FIFO in a user namespace here: " + out);

            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@1",
                    "--interval",
                    "100ms",
                    // Long enough for the agent to take in the running worker on a loaded machine: its row is the
                    // check, and the view shows it from the agent's first sample on.
                    "--duration",
                    "5s",
                    "--detach-on-exit"));
            assertEquals(0, attach.code, attach.out + attach.err);
            assertTrue(attach.out.matches("(?s).*\nworker-0 +" + tid + " +1 .*"), "pinned to CPU 1:\n" + attach.out);
            assertEquals("0-1", ProcFiles.cpusAllowed(jvm.pid(), tid), "its CPUs given back at the detach");
            assertEquals(0, PerfEventDescriptors.of(jvm.pid()));
            // Its user's name is "root" in there: the stats file is found among that user's directories, closed.
            CliRun top = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "200ms"));
            assertEquals(ExitCode.NO_AGENT, top.code, top.out + top.err);
            assertTrue(
                    top.err.contains("(its stats file /proc/" + pid + "/root/tmp/perfpin-root/jvms/" + pid
                            + ".stats is closed: the agent detached)"),
                    top.err);
        }
    }

    /**
     * The JVM's user makes its stats file a link to {@code /etc/shadow}, or to nothing: root's {@code top} opens
     * neither, and says the same of both, so the user learns nothing of root's files.
     */
    @Test
    void aStatsFileLinkedToARootOnlyFileIsRefusedAlikeWhereverItLeads() throws Exception {
        Path dir = victim.newDirectory();
        try (ChildJvm jvm = ChildJvm.startUnder(
                victim.launcher(), classPath, List.of("-Dperfpin.dir=" + dir), "io.perfpin.apps.Service", "1", "120")) {
            jvm.await(Pattern.compile("ready"));
            String pid = Long.toString(jvm.pid());
            Path stats = dir.resolve("jvms").resolve(pid + ".stats");
            victim.sh("mkdir -m 700 " + dir.resolve("jvms") + " && ln -s /etc/shadow " + stats);
            CliRun toShadow = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "200ms"));
            victim.sh("rm " + stats + " && ln -s /etc/no-such-file-of-perfpin " + stats);
            CliRun toNothing = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "200ms"));

            assertEquals(ExitCode.FAILURE, toShadow.code, toShadow.out + toShadow.err);
            assertTrue(
                    toShadow.err.contains(
                            stats + " of process " + pid + " (java) is a symbolic link, not a regular" + " file"),
                    toShadow.err);
            assertEquals(toShadow.code, toNothing.code);
            assertEquals(toShadow.err, toNothing.err);
        } finally {
            Adversary.removeAll(dir);
        }
    }

    /**
     * A JVM of another user's that is pid 1 of a pid namespace of its own (with its own mount namespace, /proc and
     * /tmp): attach finds its socket under the pid it sees for itself, pins its worker, counts it and detaches.
     */
    @Test
    void aJvmInItsOwnPidNamespaceIsAttachedPinnedAndDetached() throws Exception {
        assumeTrue(
                run(List.of("unshare", "-p", "-f", "--mount-proc", "true")).startsWith("0"),
                "cannot make pid namespaces here");
        List<String> launcher = List.of(
                "unshare",
                "-p",
                "-f",
                "-m",
                "--propagation",
                "private",
                "--mount-proc",
                "sh",
                "-c",
                "mount -t tmpfs -o mode=1777 tmpfs /tmp && cd /tmp && exec " + String.join(" ", victim.asThisUser())
                        + " \"$@\"",
                "sh");
        try (ChildJvm namespace =
                ChildJvm.startUnder(launcher, classPath, List.of(), "io.perfpin.apps.Service", "1", "120")) {
            namespace.await(Pattern.compile("ready"));
            // unshare forked the JVM: pid 1 in there, its child here
            long pid = ProcessHandle.of(namespace.pid())
                    .orElseThrow()
                    .children()
                    .findFirst()
                    .orElseThrow()
                    .pid();
            int tid = ProcFiles.tidNamed(pid, "worker-0");
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    Long.toString(pid),
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@1",
                    "--interval",
                    "100ms",
                    "--duration",
                    "1500ms",
                    "--detach-on-exit"));
            assertEquals(0, attach.code, attach.out + attach.err);
            assertTrue(attach.out.matches("(?s).*\nworker-0 +\\d+ +1 .*"), "pinned to CPU 1:\n" + attach.out);
            assertEquals("0-1", ProcFiles.cpusAllowed(pid, tid), "its CPUs given back at the detach");
            assertEquals(0, PerfEventDescriptors.of(pid));
        }
    }

    /**
     * The JVM's stats file swapped with a FIFO 100 times while root opens it (the JVM's user may rename its own
     * files as it likes): each open reads the file or is refused in one line, none waits for a writer.
     */
    @Test
    void aStatsFileSwappedWithAFifoIsNeverWaitedFor() throws Exception {
        Path dir = victim.newDirectory();
        try (ChildJvm jvm = ChildJvm.startUnder(
                victim.launcher(), classPath, List.of("-Dperfpin.dir=" + dir), "io.perfpin.apps.Service", "1", "120")) {
            jvm.await(Pattern.compile("ready"));
            Path stats = dir.resolve("jvms").resolve(jvm.pid() + ".stats");
            Path fifo = dir.resolve("jvms").resolve("fifo");
            victim.sh("mkdir -m 700 " + stats.getParent() + " && echo no-stats-file > " + stats + " && mkfifo " + fifo);
            FileCalls calls = FileCalls.ofProcess();
            AtomicBoolean swapping = new AtomicBoolean(true);
            Thread swapper = new Thread(
                    () -> {
                        while (swapping.get()) {
                            calls.renameat2(
                                    FileCalls.AT_FDCWD,
                                    stats.toString(),
                                    FileCalls.AT_FDCWD,
                                    fifo.toString(),
                                    2); // RENAME_EXCHANGE
                        }
                    },
                    "swapper");
            swapper.setDaemon(true);
            swapper.start();
            try {
                for (int i = 0; i < 100; i++) {
                    IOException refused = assertThrows(
                            IOException.class,
                            () -> AgentStatsFile.open(jvm.pid()).close());
                    // the FIFO refused by its kind before it is opened, or the swapped-in file by its content
                    assertTrue(
                            refused instanceof NotARegularFileException || refused instanceof NotAStatsFileException,
                            refused.toString());
                }
            } finally {
                swapping.set(false);
                swapper.join(TimeUnit.SECONDS.toMillis(10));
            }
        } finally {
            Adversary.removeAll(dir);
        }
    }

    /** Runs {@code script} in the mount namespace of {@code pid}, as {@code uid}; returns what it printed. */
    private static String inNamespace(long pid, int uid, String script) throws Exception {
        String out = run(List.of(
                "nsenter",
                "-t",
                Long.toString(pid),
                "-m",
                Adversary.setpriv(),
                "--reuid=" + uid,
                "--regid=" + uid,
                "--clear-groups",
                "--",
                "sh",
                "-ec",
                script));
        assertTrue(out.startsWith("0\n"), script + ": " + out);
        return out.substring(2);
    }

    /** The exit code, a line feed, then what the command printed. */
    private static String run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(new ArrayList<>(command))
                .redirectErrorStream(true)
                .start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError(command + " did not finish");
        }
        return process.exitValue() + "\n" + out;
    }

    /** An agent jar whose agentmain creates {@code marker} (as the JVM names it), readable by all. */
    private Path plantedAgentJar(String marker) throws Exception {
        Path classes = Files.createDirectory(work.resolve("planted-classes"));
        Path source = Files.writeString(
                classes.resolve("Planted.java"),
                "public class Planted {\n"
                        + "  public static void agentmain(String a, java.lang.instrument.Instrumentation i)"
                        + " throws Exception {\n"
                        + "    java.nio.file.Files.createFile(java.nio.file.Paths.get(\"" + marker + "\"));\n  }\n}\n");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", classes.toString(), source.toString()));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Agent-Class", "Planted");
        Path planted = work.resolve("planted.jar");
        try (OutputStream file = Files.newOutputStream(planted);
                JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry("Planted.class"));
            out.write(Files.readAllBytes(classes.resolve("Planted.class")));
            out.closeEntry();
        }
        Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rw-r--r--"));
        return planted;
    }

    /** Runs the victim's command as the victim, in a mount namespace of its own where /tmp is a tmpfs of its own. */
    private List<String> victimWithTmpOfItsOwn() {
        return List.of(
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                "mount -t tmpfs -o mode=1777 tmpfs /tmp && cd /tmp && exec " + String.join(" ", victim.asThisUser())
                        + " \"$@\"",
                "sh");
    }
}
