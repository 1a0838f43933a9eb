package io.perfpin.jvm;

import static io.perfpin.jvm.AttachException.Category.ATTACH_REFUSED;
import static io.perfpin.jvm.AttachException.Category.NOT_A_JVM;
import static io.perfpin.jvm.AttachException.Category.NO_SUCH_PROCESS;
import static io.perfpin.jvm.AttachException.Category.PERMISSION_DENIED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import io.perfpin.files.OwnedDirectory;
import io.perfpin.nativeio.FileStat;
import io.perfpin.testkit.ClassPath;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Child processes dumped through the attach protocol, checked against what they know of themselves. */
@Timeout(120)
class OtherJvmThreadsTest {
    private static final int SIGQUIT = 3;
    private static final int NOBODY = 65534;
    /**
     * Runs a command with SIGQUIT's default action: a shell without job control starts background commands
     * with SIGQUIT ignored, and children inherit that, so a test run from one would prove nothing.
     */
    private static final String DEFAULT_QUIT = "env";

    private static final String DEFAULT_QUIT_OPTION = "--default-signal=QUIT";

    /** The test's own JDK, and JDK 25 where the build was given it (JDK25_HOME); the same JDK once. */
    static List<String> javas() throws IOException {
        Set<Path> javas = new LinkedHashSet<>();
        javas.add(Path.of(System.getProperty("java.home"), "bin", "java").toRealPath());
        for (String java : Programs.secondJava().stream().toList()) {
            javas.add(Path.of(java).toRealPath());
        }
        return javas.stream().map(Path::toString).toList();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void dumpsAnotherJvmWithItsTids(String java) throws Exception {
        try (TestJvm child = nastyThreads(java).start()) {
            NastyTruth truth = truth(child);

            truth.check(ThreadDump.of(child.pid()), true, tid -> tid);
            // The listener runs now: the second dump connects without a signal.
            truth.check(ThreadDump.of(child.pid()), true, tid -> tid);
            assertEquals(0, child.end());
        }
    }

    /** A carrier with a virtual thread mounted is listed under its own name with its TID (JDK 21 and later). */
    @Test
    void carriersOfMountedVirtualThreadsAreFoundWithTheirTids() throws Exception {
        assumeTrue(Programs.secondJava().isPresent(), "no JDK 25 given: set JDK25_HOME");
        String jdk25 = Programs.secondJava().orElseThrow();
        try (TestJvm child = jvm(MountedVirtualThreads.class, jdk25).start()) {
            List<String> truth = child.linesBefore("ready");
            ThreadDump dump = ThreadDump.of(child.pid());
            for (String line : truth) {
                String[] fields = line.split("\t");
                int tid = Integer.parseInt(fields[fields[0].equals("carrier") ? 1 : 2]);
                String name = dump.javaThreads().stream()
                        .filter(t -> t.tid() == tid)
                        .map(JavaThreadInfo::name)
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(line + " not in " + dump.javaThreads()));
                assertTrue(
                        fields[0].equals("carrier") ? name.startsWith("ForkJoinPool-") : name.equals(fields[3]),
                        line + ": " + name);
            }
            assertTrue(dump.javaThreads().stream().noneMatch(t -> t.name().contains("\n")), dump.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("javas")
    void aRefusedCommandFailsWithTheJvmsReason(String java) throws Exception {
        try (TestJvm child = nastyThreads(java).start()) {
            truth(child);
            AttachException e = assertThrows(
                    AttachException.class,
                    () -> HotSpotAttach.jcmd(child.pid(), "No.Such.Command", ThreadDump.DEFAULT_TIMEOUT));

            assertEquals(NOT_A_JVM, e.category());
            assertEquals(
                    "process " + child.pid() + " (java) refused jcmd No.Such.Command (status -1): "
                            + "java.lang.IllegalArgumentException: Unknown diagnostic command",
                    e.getMessage());
        }
    }

    /**
     * -XX:+DisableAttachMechanism, as the JVM's hsperfdata says it, or its command line where it keeps none:
     * refused before any signal, so the JVM prints nothing.
     */
    @ParameterizedTest
    @ValueSource(strings = {"-XX:+UsePerfData", "-XX:-UsePerfData"})
    void aJvmWithAttachDisabledIsRefusedWithoutASignal(String perfData) throws Exception {
        try (TestJvm child = nastyThreads(javas().get(0))
                .jvmOptions("-XX:+DisableAttachMechanism", perfData)
                .start()) {
            truth(child);
            AttachException e = assertThrows(AttachException.class, () -> ThreadDump.of(child.pid()));

            assertEquals(ATTACH_REFUSED, e.category(), e.getMessage());
            assertEquals(
                    "process " + child.pid() + " (java) runs with -XX:+DisableAttachMechanism: it accepts no attach"
                            + " (no agent, no thread dump). Start it with -javaagent: instead, or without that flag",
                    e.getMessage());
            assertEquals(0, child.end());
            assertEquals(List.of(), child.rest(), "no SIGQUIT, so no thread dump");
        }
    }

    /**
     * A socket another user left at the attach socket's path (a JVM of theirs killed when it had this pid, which a
     * 32,768-pid host reuses within hours): never connected to nor removed, and a JVM that accepts no attach is still
     * said to be one.
     */
    @Test
    void anotherUsersSocketAtTheJvmsPathIsLeftAloneAndTheDisabledFlagIsSaid() throws Exception {
        try (TestJvm child = nastyThreads(javas().get(0))
                .jvmOptions("-XX:+DisableAttachMechanism", "-XX:-UsePerfData")
                .start()) {
            truth(child);
            Path foreign = Path.of("/tmp/.java_pid" + child.pid());
            plantSocketOfNobody(foreign);
            try {

                AttachException e = assertThrows(AttachException.class, () -> ThreadDump.of(child.pid()));

                assertEquals(ATTACH_REFUSED, e.category(), e.getMessage());
                assertTrue(e.getMessage().contains("runs with -XX:+DisableAttachMechanism"), e.getMessage());
                assertEquals(NOBODY, (int) Files.getAttribute(foreign, "unix:uid", LinkOption.NOFOLLOW_LINKS));
                assertEquals(0, child.end());
                assertEquals(List.of(), child.rest(), "no SIGQUIT, so no thread dump");
            } finally {
                Files.deleteIfExists(foreign);
            }
        }
    }

    /**
     * Another user's socket at the path of a JVM that accepts attach, whose listener was started and its socket
     * removed since (a /tmp cleaner): refused before any signal, since the JVM would take one for a thread dump, and
     * the file left alone.
     */
    @Test
    void anotherUsersSocketAtTheJvmsPathIsRefusedWithoutASignal() throws Exception {
        try (TestJvm child = nastyThreads(javas().get(0)).start()) {
            NastyTruth truth = truth(child);
            truth.check(ThreadDump.of(child.pid()), true, tid -> tid); // its listener runs
            Path foreign = Path.of("/tmp/.java_pid" + child.pid());
            Files.delete(foreign);
            plantSocketOfNobody(foreign);
            try {
                AttachException e = assertThrows(AttachException.class, () -> ThreadDump.of(child.pid()));

                assertEquals(NOT_A_JVM, e.category(), e.getMessage());
                assertTrue(
                        e.getMessage()
                                .endsWith(foreign + " of process " + child.pid() + " (java) is a socket of uid "
                                        + NOBODY + ", not the attach socket of uid 0: refusing to use it"),
                        e.getMessage());
                assertEquals(NOBODY, (int) Files.getAttribute(foreign, "unix:uid", LinkOption.NOFOLLOW_LINKS));
                assertEquals(0, child.end());
                assertEquals(List.of(), child.rest(), "no SIGQUIT, so no thread dump");
            } finally {
                Files.deleteIfExists(foreign);
            }
        }
    }

    /**
     * A socket nobody listens on, of uid nobody, at {@code path}, as another user's JVM killed with this pid leaves
     * it; the test is skipped where it cannot make one (not root) or something is there already, which it leaves
     * alone. The caller removes it.
     */
    private static void plantSocketOfNobody(Path path) throws IOException {
        assumeTrue(ProcStatus.ofSelf().effectiveUid() == 0, "only root can give a file to another user here");
        assumeTrue(!Files.exists(path, LinkOption.NOFOLLOW_LINKS), "a file is at " + path + " already");
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(path));
        }
        try {
            Files.setAttribute(path, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            Files.delete(path);
            throw e;
        }
    }

    /**
     * The flag where the kernel does not show it (an @argfile) and no hsperfdata: one SIGQUIT, a refusal within
     * two seconds, and the one thread dump that signal made the JVM print, never a second.
     */
    @Test
    void aHiddenDisabledFlagCostsOneSignalAtMost(@TempDir Path dir) throws Exception {
        Path flags = Files.writeString(dir.resolve("flags"), "-XX:+DisableAttachMechanism -XX:-UsePerfData\n");
        try (TestJvm child =
                nastyThreads(javas().get(0)).jvmOptions("@" + flags).start()) {
            truth(child);
            AttachException e = assertThrows(AttachException.class, () -> ThreadDump.of(child.pid()));

            assertEquals(ATTACH_REFUSED, e.category());
            assertTrue(
                    e.getMessage().contains("did not start its attach listener within 2000 ms of one SIGQUIT"),
                    e.getMessage());
            assertNoTriggerLeft(child.pid());
            assertEquals(0, child.end(), "alive until told to end");
            assertEquals(
                    1,
                    child.rest().stream()
                            .filter(l -> l.startsWith("Full thread dump"))
                            .count());
        }
    }

    /** A trigger another user made where the JVM looks first would be ignored, and the signal print a dump. */
    @Test
    void aTriggerPlantedByAnotherUserIsRefusedAndLeftAlone(@TempDir Path dir) throws Exception {
        assumeTrue(ProcStatus.ofSelf().effectiveUid() == 0, "only root can give a file to another user here");
        try (TestJvm child = nastyThreads(javas().get(0)).directory(dir).start()) {
            truth(child);
            Path planted = Files.createFile(dir.resolve(".attach_pid" + child.pid()));
            Files.setAttribute(planted, "unix:uid", NOBODY);

            AttachException e = assertThrows(AttachException.class, () -> ThreadDump.of(child.pid()));

            assertEquals(ATTACH_REFUSED, e.category());
            assertTrue(
                    e.getMessage()
                            .contains("belongs to uid " + NOBODY + ", so process " + child.pid()
                                    + " (java) would ignore it and print a thread dump: no signal sent"),
                    e.getMessage());
            assertEquals(NOBODY, (int) Files.getAttribute(planted, "unix:uid"), "the planted file is left alone");
            assertEquals(0, child.end());
            assertEquals(List.of(), child.rest(), "no SIGQUIT, so no thread dump");
        }
    }

    @Test
    void replacesASocketLeftByAKilledJvmWithTheSamePid() throws Exception {
        try (TestJvm child = nastyThreads(javas().get(0)).start()) {
            NastyTruth truth = truth(child);
            staleSocket(child);

            truth.check(ThreadDump.of(child.pid()), true, tid -> tid);
        }
    }

    /**
     * The stale socket perfpin removes is the one its connect was refused on: a socket made since, such as a listener
     * another tool started meanwhile, stays.
     */
    @Test
    void onlyTheSocketThatRefusedTheConnectionIsRemoved() throws Exception {
        try (TestJvm child = nastyThreads(javas().get(0)).start()) {
            truth(child);
            Path stale = staleSocket(child);
            try (TargetFiles files = TargetFiles.open(child.pid(), ProcStatus.ofProcess(child.pid()));
                    ServerSocketChannel since = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                FileStat refused = refusedOn(files, stale);
                // As HotSpot starts its listener: a socket of its own beside it, renamed over the path.
                Path beside = Path.of(stale + ".tmp");
                since.bind(UnixDomainSocketAddress.of(beside));
                Files.move(beside, stale, StandardCopyOption.ATOMIC_MOVE);

                assertFalse(files.remove(false, "/tmp", stale.getFileName().toString(), refused));
                assertTrue(Files.exists(stale, LinkOption.NOFOLLOW_LINKS), "the socket made since stays");
            } finally {
                Files.deleteIfExists(stale);
            }
        }
    }

    /**
     * The socket that refused the connection, changed since (its inode's change time moved: here a chmod, as a socket
     * made again under the inode number the file system gave back would show), is not the one perfpin meant: it stays.
     */
    @Test
    void aSocketChangedSinceItRefusedTheConnectionIsNotRemoved() throws Exception {
        try (TestJvm child = nastyThreads(javas().get(0)).start()) {
            truth(child);
            Path stale = staleSocket(child);
            try (TargetFiles files = TargetFiles.open(child.pid(), ProcStatus.ofProcess(child.pid()))) {
                FileStat refused = refusedOn(files, stale);
                // the kernel's clock for inode times may be coarse: chmod until the change time moves, within a
                // deadline
                long deadline = System.nanoTime() + 10_000_000_000L;
                for (int i = 0; changedNanos(stale) == refused.changedNanos() && System.nanoTime() < deadline; i++) {
                    Files.setPosixFilePermissions(
                            stale, PosixFilePermissions.fromString(i % 2 == 0 ? "rwx------" : "rwxr-x---"));
                }
                assertTrue(changedNanos(stale) != refused.changedNanos(), "its inode changed");

                assertFalse(files.remove(false, "/tmp", stale.getFileName().toString(), refused));
                assertTrue(Files.exists(stale, LinkOption.NOFOLLOW_LINKS), "the socket changed since stays");
            } finally {
                Files.deleteIfExists(stale);
            }
        }
    }

    /** The child's attach socket, made and closed with nobody listening, as a JVM killed by SIGKILL leaves it. */
    private static Path staleSocket(TestJvm child) throws IOException {
        Path stale = Path.of("/tmp/.java_pid" + child.pid());
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(stale)); // closing leaves the file
        }
        return stale;
    }

    /** What the stale socket's stat said as it refused a connection. */
    private static FileStat refusedOn(TargetFiles files, Path stale) throws IOException {
        TargetFiles.Attempt attempt = files.connect(stale.toString(), System.nanoTime() + 5_000_000_000L);
        assertEquals(null, attempt.connection(), "nobody listens on the stale socket");
        assertTrue(attempt.refused() != null && attempt.refused().isSocket(), "the socket that refused it");
        return attempt.refused();
    }

    private static long changedNanos(Path path) throws IOException {
        return ((FileTime) Files.getAttribute(path, "unix:ctime", LinkOption.NOFOLLOW_LINKS)).to(TimeUnit.NANOSECONDS);
    }

    @Test
    void translatesTheTidsOfAJvmInItsOwnPidNamespace() throws Exception {
        assumeTrue(
                TestJvm.program("unshare", "--pid", "--fork", "--mount-proc", "true")
                                .exitStatus()
                        == 0,
                "cannot make pid namespaces here");
        try (TestJvm child = nastyThreads(javas().get(0))
                .launcher("unshare", "--pid", "--fork", "--mount-proc")
                .start()) {
            NastyTruth truth = truth(child);
            long pid = child.process()
                    .toHandle()
                    .children()
                    .findFirst()
                    .orElseThrow()
                    .pid();

            ThreadDump dump = ThreadDump.of(pid);

            truth.check(dump, true, tid -> innermostTid(pid, tid));
            assertTrue(dump.javaThreads().stream()
                    .allMatch(t -> Files.exists(Path.of("/proc/" + pid + "/task/" + t.tid()))));
            assertTrue(
                    dump.javaThreads().stream().anyMatch(t -> innermostTid(pid, t.tid()) != t.tid()),
                    "a JVM in its own pid namespace numbers its threads differently");
        }
    }

    @Test
    void rootAttachesToAnotherUsersJvm() throws Exception {
        assumeTrue(ProcStatus.ofSelf().effectiveUid() == 0, "needs root");
        try (TestJvm child = nastyThreads(javas().get(0)).launcher(asNobody()).start()) {
            truth(child).check(ThreadDump.of(child.pid()), true, tid -> tid);
        }
    }

    @Test
    void anotherUserMayNotAttach() throws Exception {
        assumeTrue(ProcStatus.ofSelf().effectiveUid() == 0, "needs root to run a probe as nobody");
        try (TestJvm target = nastyThreads(javas().get(0)).start()) {
            truth(target);
            List<String> said = jvm(AttachProbe.class, javas().get(0))
                    .launcher(asNobody())
                    .classPath(ClassPath.of(AttachProbe.class, ThreadDump.class, OwnedDirectory.class))
                    .args(Long.toString(target.pid()))
                    .mergeStderr()
                    .run();

            assertEquals(
                    PERMISSION_DENIED + "\tprocess " + target.pid() + " (java) runs as uid 0 gid 0, perfpin as "
                            + "uid " + NOBODY + " gid " + NOBODY
                            + ": a JVM lets only its own user and group, or root, attach",
                    String.join("\n", said));
            assertTrue(target.process().isAlive());
        }
    }

    @Test
    void noSuchProcess() throws IOException {
        // Files.readString would read one byte: it reads sysctl files at an offset, where they end.
        long pidMax = Long.parseLong(
                Files.readAllLines(Path.of("/proc/sys/kernel/pid_max")).get(0));
        for (long pid : new long[] {pidMax + 1, 0, -1}) {
            AttachException e = assertThrows(AttachException.class, () -> ThreadDump.of(pid));
            assertEquals(NO_SUCH_PROCESS, e.category(), e.getMessage());
            assertEquals("no process with pid " + pid, e.getMessage());
        }
    }

    @Test
    void sleepIsNotAJvmAndSurvives() throws Exception {
        try (TestJvm sleep = TestJvm.program(DEFAULT_QUIT, DEFAULT_QUIT_OPTION, "sleep", "60")
                .start()) {
            awaitCommand(sleep.pid(), "sleep");

            AttachException e = refused(sleep.pid(), 3);

            assertEquals(NOT_A_JVM, e.category());
            assertEquals(
                    "process " + sleep.pid() + " (sleep) is not a HotSpot JVM: it has no libjvm.so loaded",
                    e.getMessage());
            assertNoTriggerLeft(sleep.pid());
            assertDiesOfSigquitOnlyNow(sleep);
        }
    }

    @Test
    void aProcessCatchingSigquitIsStillNotSignalledUnlessItIsAJvm() throws Exception {
        try (TestJvm shell = TestJvm.program(
                        DEFAULT_QUIT,
                        DEFAULT_QUIT_OPTION,
                        "bash",
                        "-c",
                        "trap 'exit 7' QUIT; while :; do sleep 0.1; done")
                .start()) {
            await(() -> ProcStatus.ofProcess(shell.pid()).catchesQuit(), "the shell's trap set");

            AttachException e = refused(shell.pid(), 3);

            assertEquals(NOT_A_JVM, e.category());
            // A SIGQUIT would run the trap once the sleep that runs now ends: the shell's next sleep proves it ended.
            long sleeping = sleepOf(shell);
            await(
                    () -> !shell.process().isAlive() || sleepOf(shell) != 0 && sleepOf(shell) != sleeping,
                    "the shell's next sleep");
            assertTrue(shell.process().isAlive());
            shell.signal("QUIT");
            assertEquals(7, shell.awaitExit());
        }
    }

    @Test
    void aProcessDyingOfTheSignalKeepsNoTrigger() throws Exception {
        // Looks like a JVM that handles SIGQUIT, but SIGQUIT ends it.
        String libjvm = Path.of(javas().get(0))
                .getParent()
                .getParent()
                .resolve("lib/server/libjvm.so")
                .toString();
        try (TestJvm shell = TestJvm.program(
                        DEFAULT_QUIT,
                        DEFAULT_QUIT_OPTION,
                        "LD_PRELOAD=" + libjvm,
                        "bash",
                        "-c",
                        "trap 'exit 3' QUIT; while :; do sleep 0.1; done")
                .start()) {
            await(() -> ProcStatus.ofProcess(shell.pid()).catchesQuit(), "the shell's trap set");

            AttachException e = refused(shell.pid(), 30);

            assertEquals(NO_SUCH_PROCESS, e.category());
            assertEquals("process " + shell.pid() + " (bash) exited while perfpin attached", e.getMessage());
            assertEquals(3, shell.awaitExit());
            assertFalse(Files.exists(Path.of(".attach_pid" + shell.pid())), "trigger left in its working directory");
        }
    }

    @Test
    void aJvmRunWithXrsListensFromTheStartAndNeedsNoSignal() throws Exception {
        try (TestJvm child = nastyThreads(javas().get(0))
                .launcher(DEFAULT_QUIT, DEFAULT_QUIT_OPTION)
                .jvmOptions("-Xrs")
                .start()) {
            truth(child).check(ThreadDump.of(child.pid()), true, tid -> tid);

            assertDiesOfSigquitOnlyNow(child);
        }
    }

    @Test
    void aJvmWithoutSigquitHandlerIsNotSignalled() throws Exception {
        try (TestJvm child = nastyThreads(javas().get(0))
                .launcher(DEFAULT_QUIT, DEFAULT_QUIT_OPTION)
                .jvmOptions("-Xrs", "-XX:+DisableAttachMechanism")
                .start()) {
            truth(child);
            AttachException e = refused(child.pid(), 3);

            assertEquals(ATTACH_REFUSED, e.category());
            assertTrue(
                    e.getMessage()
                            .endsWith("runs with -XX:+DisableAttachMechanism: it accepts no attach (no agent, no"
                                    + " thread dump). Start it with -javaagent: instead, or without that flag"),
                    e.getMessage());
            assertNoTriggerLeft(child.pid());
            assertDiesOfSigquitOnlyNow(child);
        }
    }

    private static AttachException refused(long pid, int timeoutSeconds) {
        return assertThrows(AttachException.class, () -> ThreadDump.of(pid, Duration.ofSeconds(timeoutSeconds)));
    }

    /** Alive, so nothing signalled it, though SIGQUIT kills it: as our SIGQUIT now does. */
    private static void assertDiesOfSigquitOnlyNow(TestJvm child) throws Exception {
        assertTrue(child.process().isAlive());
        child.signal("QUIT");
        assertEquals(128 + SIGQUIT, child.awaitExit());
        Files.deleteIfExists(Path.of("/tmp/.java_pid" + child.pid())); // a JVM killed leaves its socket
    }

    /** A launcher that runs the JVM as nobody. */
    private static List<String> asNobody() {
        return List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups");
    }

    /** {@code main} in a JVM from {@code java}, with only the test classes for a class path. */
    private static TestJvm.Builder jvm(Class<?> main, String java) {
        return TestJvm.main(main).java(java).classPath(ClassPath.of(main));
    }

    private static TestJvm.Builder nastyThreads(String java) {
        return jvm(NastyThreads.class, java);
    }

    /** What {@link NastyThreads} knows of its threads, once it is ready. */
    private static NastyTruth truth(TestJvm child) {
        return NastyTruth.parse(child.linesBefore("ready"));
    }

    private static void assertNoTriggerLeft(long pid) {
        assertFalse(Files.exists(Path.of("/proc/" + pid + "/cwd/.attach_pid" + pid)));
        assertFalse(Files.exists(Path.of("/proc/" + pid + "/root/tmp/.attach_pid" + pid)));
    }

    private static void awaitCommand(long pid, String command) throws Exception {
        await(
                () -> Files.readString(Path.of("/proc/" + pid + "/comm"))
                        .strip()
                        .equals(command),
                "pid " + pid + " runs " + command);
    }

    /** The pid of the sleep the shell runs now; 0 between two. */
    private static long sleepOf(TestJvm shell) {
        return shell.process().children().findFirst().map(ProcessHandle::pid).orElse(0L);
    }

    /** Waits until {@code condition} holds, failing after the testkit's deadline. */
    private static void await(Callable<Boolean> condition, String what) throws Exception {
        long deadline = System.nanoTime() + TestJvm.DEADLINE.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not within " + TestJvm.DEADLINE);
            }
            Thread.sleep(10);
        }
    }

    private static int innermostTid(long pid, int tid) {
        try {
            String nsTids = Files.readAllLines(Path.of("/proc/" + pid + "/task/" + tid + "/status")).stream()
                    .filter(l -> l.startsWith("NSpid:"))
                    .findFirst()
                    .orElseThrow();
            String[] fields = nsTids.split("\\s+");
            return Integer.parseInt(fields[fields.length - 1]);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
