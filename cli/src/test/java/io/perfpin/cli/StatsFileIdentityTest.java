package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.apps.Programs;
import io.perfpin.jvm.AgentJar;
import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.jvm.PidNamespace;
import io.perfpin.jvm.StatsFileOfAnotherProcessException;
import io.perfpin.jvm.ThreadStartTime;
import io.perfpin.stats.StatsFileName;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whose stats file a viewer reads: JVMs of one user in pid namespaces of their own, sharing the host's /tmp with a
 * JVM of the host's, each keep their own file; a file that another process wrote is refused, never shown as the
 * asked JVM's; and the file is found where the agent put it, however its directory was set.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StatsFileIdentityTest {
    private static final Pattern READY = Pattern.compile("ready");

    @TempDir
    Path dir;

    /**
     * A normal user's JVM on the host, then two of its JVMs each pid 1 of a pid namespace of its own (same /tmp, same
     * perfpin directory): the host JVM's file is never removed or replaced, the two pid-1 JVMs have a file each, and
     * each JVM's file, read as a viewer reads it, is that JVM's.
     */
    @Test
    void jvmsOfOnePidInTwoPidNamespacesAndTheHostKeepEachTheirOwnFile() throws Exception {
        Adversary user = Adversary.create();
        assumeTrue(Programs.onPath("unshare").isPresent(), "unshare is needed on the PATH");
        try (TestJvm probe =
                TestJvm.program("unshare", "-p", "-f", "--mount-proc", "true").start()) {
            assumeTrue(probe.awaitExit() == 0, "cannot make pid namespaces here");
        }
        Path work = Files.createTempDirectory(Paths.get("/var/tmp"), "perfpin-pidns");
        Path shared = Paths.get("/tmp", work.getFileName().toString());
        try {
            Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
            String classPath = Adversary.readableCopy(
                    ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                    Files.createDirectory(work.resolve("cp")));
            Path agent = Files.copy(AgentJar.forThisUser(), work.resolve("perfpin-agent.jar"));
            Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rw-r--r--"));
            user.sh("mkdir -m 700 " + shared);
            List<String> options =
                    List.of("-javaagent:" + agent + "=threads=worker-.*;interval=100ms", "-Dperfpin.dir=" + shared);
            List<String> namespaced = new ArrayList<>(List.of("unshare", "-p", "-f", "--mount-proc"));
            namespaced.addAll(user.asThisUser());
            Path jvms = shared.resolve(PerfpinDirectory.JVMS);
            try (ChildJvm host =
                    ChildJvm.startUnder(user.asThisUser(), classPath, options, "io.perfpin.apps.Service", "1", "120")) {
                host.await(READY);
                Path hostFile = awaitStatsFile(host.pid());
                assertEquals(jvms.resolve(host.pid() + ".stats"), hostFile);
                Object inode = Files.getAttribute(hostFile, "unix:ino");
                try (ChildJvm first = ChildJvm.startUnder(
                                namespaced, classPath, options, "io.perfpin.apps.Service", "1", "120");
                        ChildJvm second = ChildJvm.startUnder(
                                namespaced, classPath, options, "io.perfpin.apps.Service", "1", "120")) {
                    first.await(READY);
                    second.await(READY);
                    // unshare forked each JVM: pid 1 in there, its child here
                    long[] pids = {host.pid(), jvmOf(first), jvmOf(second)};
                    for (long pid : pids) {
                        long namespace = PidNamespace.of(pid);
                        long nsPid = pid == host.pid() ? pid : 1;
                        // in its own mount namespace (--mount-proc makes one), reached through its root
                        Path file = jvms.resolve(new StatsFileName(nsPid, namespace).name());
                        assertEquals(
                                pid == host.pid() ? file : Path.of("/proc/" + pid + "/root" + file),
                                awaitStatsFile(pid));
                        try (StatsFileReader reader = AgentStatsFile.open(pid)) {
                            assertEquals(nsPid, reader.pid());
                            assertEquals(namespace, reader.pidNamespace());
                            assertEquals(ThreadStartTime.of(pid, (int) pid).getAsLong(), reader.processStart());
                        }
                    }
                    try (Stream<Path> files = Files.list(jvms)) {
                        assertEquals(3, files.count(), "a file for each JVM");
                    }
                    CliRun top = CliRun.capture(
                            () -> Perfpin.run("top", Long.toString(pids[2]), "--duration", "1s", "--format", "csv"));
                    assertEquals(0, top.code, top.out + top.err);
                    assertTrue(top.out.contains("\nworker-0,"), top.out);
                }
                assertEquals(inode, Files.getAttribute(hostFile, "unix:ino"), "the host JVM's file was replaced");
                assertFalse(host.output().contains("stopped publishing"), host.output());
            }
        } finally {
            Adversary.removeAll(shared);
            Adversary.removeAll(work);
        }
    }

    /**
     * The file where a JVM's agent would keep its own holds another JVM's (a JVM that had the pid before, or a copy):
     * refused in one line, its counts never shown as this JVM's.
     */
    @Test
    void aStatsFileAnotherProcessWroteIsRefused() throws Exception {
        try (ChildJvm writer = ChildJvm.withAgent("threads=worker-.*", "io.perfpin.apps.Service", "1", "120");
                ChildJvm target = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            writer.await(READY);
            target.await(READY);
            Path planted = PerfpinDirectory.statsFile(target.pid());
            try {
                Path written = awaitStatsFile(writer.pid());
                Files.copy(written, planted, StandardCopyOption.REPLACE_EXISTING);
                assertThrows(StatsFileOfAnotherProcessException.class, () -> AgentStatsFile.open(target.pid()));
                CliRun top = CliRun.capture(
                        () -> Perfpin.run("top", Long.toString(target.pid()), "--duration", "1s", "--format", "csv"));
                assertEquals(ExitCode.FAILURE, top.code, top.out + top.err);
                assertEquals(
                        "perfpin top: cannot read the stats file: " + planted + " was written by another process than "
                                + target.pid() + " (pid " + writer.pid() + " of pid namespace "
                                + PidNamespace.of(writer.pid()) + ", started at tick "
                                + ThreadStartTime.of(writer.pid(), (int) writer.pid())
                                        .getAsLong()
                                + "): perfpin shows no other JVM's counts as this one's\n",
                        top.err);
                assertEquals("", top.out);
            } finally {
                Files.deleteIfExists(planted);
            }
        }
    }

    /**
     * {@code -Dperfpin.dir} given in an {@code @argfile}, which the JVM's command line does not show: top finds the
     * file where the agent put it, and shows the JVM's worker.
     */
    @Test
    void aPerfpinDirGivenInAnArgfileIsWhereTopFindsTheStatsFile() throws Exception {
        Path perfpin = Files.createDirectory(
                dir.resolve("perfpin"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path args = Files.writeString(dir.resolve("args.txt"), "-Dperfpin.dir=" + perfpin + "\n");
        String agent = "-javaagent:" + AgentJar.forThisUser() + "=threads=worker-.*;interval=100ms";
        try (ChildJvm jvm = ChildJvm.startWith(List.of("@" + args, agent), "io.perfpin.apps.Service", "1", "120")) {
            jvm.await(READY);
            assertEquals(
                    perfpin.resolve(PerfpinDirectory.JVMS).resolve(jvm.pid() + ".stats"), awaitStatsFile(jvm.pid()));
            CliRun top = CliRun.capture(
                    () -> Perfpin.run("top", Long.toString(jvm.pid()), "--duration", "1s", "--format", "csv"));
            assertEquals(0, top.code, top.out + top.err);
            assertTrue(top.out.contains("\nworker-0,"), top.out);
        }
    }

    /** The JVM that unshare forked for {@code launcher}. */
    private static long jvmOf(ChildJvm launcher) {
        return ProcessHandle.of(launcher.pid())
                .orElseThrow()
                .children()
                .findFirst()
                .orElseThrow()
                .pid();
    }

    /** Where JVM {@code pid}'s agent keeps its stats file, once a viewer can read it; fails past the deadline. */
    private static Path awaitStatsFile(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TestJvm.DEADLINE.toNanos();
        while (true) {
            try (StatsFileReader ignored = AgentStatsFile.open(pid)) {
                return AgentStatsFile.of(pid);
            } catch (IOException e) {
                assertTrue(System.nanoTime() < deadline, "no stats file of " + pid + " to read: " + e);
            }
            Thread.sleep(20);
        }
    }
}
