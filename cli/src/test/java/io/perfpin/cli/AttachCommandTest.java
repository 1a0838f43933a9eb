package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.apps.Programs;
import io.perfpin.cpu.CpuReservation;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.jvm.AgentJar;
import io.perfpin.jvm.AgentPresence;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.testkit.SystemProperty;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** attach, its live view, detach, and run, on real JVMs with the agent packaged in the CLI's jar. */
class AttachCommandTest {
    @Test
    void attachPinsAndShowsRunningThreadsAndDetachOnExitUndoesIt() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            int tid = service.tid("worker-0");
            service.await(Pattern.compile("ready"));
            CliRun run = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    Long.toString(service.pid()),
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@1",
                    "--interval",
                    "200ms",
                    "--duration",
                    "1s",
                    "--detach-on-exit"));
            assertEquals(0, run.code, run.err);
            assertTrue(
                    run.out.matches("(?s).*worker-0 +" + tid + " +1 .*"),
                    "worker-0 shown pinned to CPU 1:\n" + run.out);
            assertTrue(run.out.endsWith("perfpin: detached from " + service.pid() + "\n"), run.out);
            assertEquals("0-1", ProcFiles.cpusAllowed(service.pid(), tid), "detach gave the affinity back");
            try (StatsFileReader reader = StatsFileReader.open(PerfpinDirectory.statsFile(service.pid()))) {
                assertTrue(reader.isClosed());
            }

            CliRun again = CliRun.capture(() -> Perfpin.run("detach", Long.toString(service.pid())));
            assertEquals(ExitCode.NO_AGENT, again.code, again.err);
            Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
        }
    }

    /**
     * 200 virtual threads that start and end while attach --virtual watches, on the second JDK: its live view and
     * its totals at the JVM's exit show them as their group, with how many it has and the p50 and p99 of one's
     * totals, and never a row of one of them.
     */
    @Test
    void attachShowsVirtualThreadsByGroup() throws Exception {
        Optional<String> java = Programs.secondJava();
        assumeTrue(java.isPresent(), "virtual threads need JDK 21 or later: set JDK25_HOME");
        try (ChildJvm app = ChildJvm.startOn(java.get(), VirtualChild.class.getName(), "200")) {
            app.await(Pattern.compile("ready"));
            CliRun.Running attach = CliRun.background(() -> Perfpin.run(
                    "attach",
                    Long.toString(app.pid()),
                    "--threads",
                    "main",
                    "--virtual",
                    "vm-.*",
                    "--interval",
                    "100ms"));
            attach.awaitOut(Pattern.compile("(?s).*perfpin attach  pid " + app.pid() + " .*"));
            app.send("go");
            app.await(Pattern.compile("done 200"));
            attach.awaitOut(Pattern.compile("(?s).*\\nvm \\(members: 200 ended, 0 running\\) .*"));
            app.closeInput();
            CliRun run = attach.join();
            assertEquals(0, run.code, run.err);
            String totals = run.out.substring(run.out.indexOf("Totals per thread"));
            assertTrue(totals.contains("\nvm (members: 200 ended, 0 running) "), run.out);
            assertTrue(totals.contains("\nvm p50 of one ") && totals.contains("\nvm p99 of one "), run.out);
            assertFalse(Pattern.compile("(?m)^vm-[0-9]+ ").matcher(run.out).find(), "a row per thread:\n" + run.out);
        }
    }

    /**
     * attach --prometheus: the agent in the attached JVM serves /metrics, worker-0 with a series of its own by
     * --export-threads, and detach at the end lets go of the port.
     */
    @Test
    void attachWithPrometheusServesMetricsUntilItDetaches() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            service.await(Pattern.compile("ready"));
            int port;
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = free.getLocalPort();
            }
            CliRun.Running attach = CliRun.background(() -> Perfpin.run(
                    "attach",
                    Long.toString(service.pid()),
                    "--threads",
                    "worker-.*",
                    "--prometheus",
                    "127.0.0.1:" + port,
                    "--export-threads",
                    "worker-0",
                    "--interval",
                    "100ms",
                    // the attach itself takes part of it, more on a loaded host: room to scrape worker-0 after it
                    "--duration",
                    "10s",
                    "--detach-on-exit"));
            String metrics = "";
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!metrics.contains("thread=\"worker-0\"") && System.nanoTime() < deadline) {
                Thread.sleep(100);
                metrics = scrape(port);
            }
            assertTrue(
                    metrics.contains("perfpin_thread_task_clock_seconds_total{cpu=\"0-1\",thread=\"worker-0\","
                            + "thread_group=\"worker\"}"),
                    metrics);
            assertTrue(metrics.contains("perfpin_thread_task_clock_seconds_total{thread_group=\"worker\"}"), metrics);
            CliRun run = attach.join();
            assertEquals(0, run.code, run.err);
            assertEquals("", scrape(port), "detached: nothing listens there");
            List<String> rest = service.endAndReadRest();
            assertTrue(
                    rest.stream().noneMatch(l -> l.startsWith("[perfpin]")), "nothing on the application's: " + rest);
            Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
        }
    }

    /** The body of GET /metrics; empty when nothing answers. */
    private static String scrape(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /metrics HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * A pin to a CPU the JVM may not use is a usage error found before anything is loaded: exit 2, and the JVM never
     * saw a Java agent.
     */
    @Test
    @Timeout(120)
    void aPinOutsideTheJvmsCpusIsExit2BeforeTheAgentIsLoaded() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            String cpus = ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
            int outside = CpuSet.parseList(cpus).last() + 1;
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    Long.toString(service.pid()),
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@" + outside,
                    "--duration",
                    "1s"));
            assertEquals(ExitCode.USAGE, attach.code, attach.out + attach.err);
            assertTrue(
                    attach.err.startsWith("perfpin attach: placement " + outside + ": CPU " + outside + " is "),
                    attach.err);
            assertFalse(ProcFiles.maps(service.pid(), "libinstrument.so"), "no agent was loaded");
            assertLeftAsFound(service, cpus);
        }
    }

    /**
     * What the agent could not do is said in attach's own output, not on the application's stderr: exit 1, and the
     * agent that attach loaded is detached, leaving nothing pinned and no descriptor.
     */
    @Test
    @Timeout(120)
    void aRefusedPinIsSaidByAttachItselfAndTheAgentItLoadedIsDetached(@TempDir Path dir) throws Exception {
        CpuTopology machine = CpuTopology.live();
        List<CpuSet> wholeCores =
                machine.cores().stream().filter(machine.allowed()::containsAll).toList();
        assumeTrue(!wholeCores.isEmpty(), "needs a whole core");
        // Every core held in the JVM's own reservations: a pin to a core passes attach's checks, and only the agent
        // finds that none is free.
        List<CpuReservation> held = new ArrayList<>();
        try (ChildJvm service = ChildJvm.startWith(
                List.of("-D" + PerfpinDirectory.PROPERTY + "=" + dir), "io.perfpin.apps.Service", "1", "120")) {
            try (SystemProperty own = SystemProperty.set(PerfpinDirectory.PROPERTY, dir.toString())) {
                CpuReservations reservations = CpuReservations.openDefault();
                for (CpuSet core : wholeCores) {
                    held.add(reservations.tryReserve(core, 1, "test").orElseThrow());
                }
            }
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            String cpus = ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
            Path log = dir.resolve("agent.log");
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@core",
                    "--interval",
                    "100ms",
                    "--duration",
                    "1s",
                    "--log",
                    log.toString()));
            assertEquals(ExitCode.FAILURE, attach.code, attach.out + attach.err);
            assertTrue(attach.out.contains("agent refused: cannot pin thread 'worker-0' (core): "), attach.out);
            // with --log, the agent's log= file keeps it too, with its time and kind
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(log)));
            assertTrue(
                    Files.readAllLines(log).stream()
                            .anyMatch(line -> line.matches("\\d{4}-\\d\\d-\\d\\dT"
                                    + "\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\S* refused cannot pin thread"
                                    + " 'worker-0' \\(core\\): .*")),
                    Files.readString(log));
            assertEquals(
                    "perfpin attach: the agent could not do 1 thing these options ask: see 'agent refused' above;"
                            + " the agent that perfpin loaded is detached, leaving process " + pid
                            + " as perfpin found it\n",
                    attach.err);
            assertLeftAsFound(service, cpus);
        } finally {
            held.forEach(CpuReservation::close);
        }
    }

    /**
     * What attach can judge from outside the JVM is refused before anything is asked of it: a pin to isolated CPUs
     * on a machine that has none loads no agent; with --restart, that pin and an --output that cannot be written are
     * refused while the agent that runs keeps running, with its own options.
     */
    @Test
    @Timeout(120)
    void whatAttachCanCheckIsRefusedBeforeARestartDetachesTheRunningAgent(@TempDir Path dir) throws Exception {
        CpuTopology machine = CpuTopology.live();
        assumeTrue(machine.isolated().union(machine.nohzFull()).isEmpty(), "needs a machine without isolated CPUs");
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            String cpus = ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
            CliRun isolated = CliRun.capture(() -> Perfpin.run(
                    "attach", pid, "--threads", "worker-.*", "--pin", "worker-0@isolated", "--duration", "1s"));
            assertEquals(ExitCode.FAILURE, isolated.code, isolated.out + isolated.err);
            assertEquals(
                    "perfpin attach: placement isolated: this machine has no isolated CPUs; isolate some with the"
                            + " kernel parameters isolcpus=<cpus> nohz_full=<cpus> and reboot, or use core or a CPU"
                            + " list\n",
                    isolated.err);
            assertFalse(ProcFiles.maps(service.pid(), "libinstrument.so"), "no agent was loaded");

            CliRun first = CliRun.capture(() -> Perfpin.run("attach", pid, "--threads", "main", "--duration", "300ms"));
            assertEquals(ExitCode.OK, first.code, first.out + first.err);
            // each option refused, and the start of the line that says so
            for (List<String> refused : List.of(
                    List.of("--output", dir.toString(), "--output: "),
                    List.of("--pin", "worker-0@isolated", "placement isolated: "))) {
                List<String> args = new ArrayList<>(
                        List.of("attach", pid, "--threads", "worker-.*", "--restart", "--duration", "300ms"));
                args.addAll(refused.subList(0, 2));
                CliRun restart = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
                assertEquals(ExitCode.FAILURE, restart.code, refused + ": " + restart.out + restart.err);
                assertTrue(restart.err.startsWith("perfpin attach: " + refused.get(2)), restart.err);
                assertTrue(
                        AgentPresence.runs(service.pid(), AgentSession.ATTACH_TIMEOUT),
                        "the agent still runs after " + refused);
                assertEquals(
                        "threads=main;events=sched;quiet",
                        AgentState.of(service.pid()).options().shown(),
                        "with its own options after " + refused);
            }
            assertEquals(ExitCode.OK, CliRun.capture(() -> Perfpin.run("detach", pid)).code);
            assertLeftAsFound(service, cpus);
        }
    }

    /** The CPUs a placement chose are said in attach's own output, once, as the agent said them. */
    @Test
    @Timeout(120)
    void theCoreAPinChoseIsSaidByAttach(@TempDir Path dir) throws Exception {
        CpuTopology machine = CpuTopology.live();
        List<CpuSet> wholeCores =
                machine.cores().stream().filter(machine.allowed()::containsAll).toList();
        assumeTrue(!wholeCores.isEmpty(), "needs a whole core");
        // Reservations of its own: no other test's pins take the cores.
        try (ChildJvm service = ChildJvm.startWith(
                List.of("-D" + PerfpinDirectory.PROPERTY + "=" + dir), "io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            String cpus = ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@core",
                    "--interval",
                    "100ms",
                    "--duration",
                    "1s",
                    "--detach-on-exit"));
            assertEquals(ExitCode.OK, attach.code, attach.out + attach.err);
            Matcher placed = Pattern.compile("agent: pin=core placed worker-0 on CPUs? (\\S+)")
                    .matcher(attach.out);
            assertTrue(placed.find(), attach.out);
            assertTrue(
                    wholeCores.contains(CpuSet.parseList(placed.group(1))),
                    placed.group(1) + " is a core of " + wholeCores);
            assertFalse(placed.find(), "said once: " + attach.out);
            assertLeftAsFound(service, cpus);
        }
    }

    /** With a share of descriptors too small for any thread's counters, attach fails and takes its agent back. */
    @Test
    @Timeout(120)
    void anAttachThatCountsNoThreadDetachesTheAgentItLoaded() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            String cpus = ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-.*@1",
                    "--fds",
                    "2",
                    "--events",
                    "sched",
                    "--interval",
                    "100ms",
                    "--duration",
                    "1s"));
            assertEquals(ExitCode.FAILURE, attach.code, attach.out + attach.err);
            assertTrue(
                    attach.err.startsWith("perfpin attach: none of the selected threads could be counted; threads"
                            + " not counted: 2, out of file descriptors (perfpin may hold 2: agent option fds=)"),
                    attach.err);
            assertTrue(
                    attach.err.endsWith("; the agent that perfpin loaded is detached, leaving process " + pid
                            + " as perfpin found it\n"),
                    attach.err);
            assertEquals(1, attach.err.lines().count(), "one line: " + attach.err);
            assertLeftAsFound(service, cpus);
        }
    }

    /**
     * An agent that runs but cannot make its stats file (its perfpin directory cannot be created) gives attach no
     * view: attach exits 7 and detaches it.
     */
    @Test
    @Timeout(120)
    void anAgentWithoutAStatsFileIsDetachedByTheAttachThatLoadedIt() throws Exception {
        try (ChildJvm service = ChildJvm.startWith(
                List.of("-D" + PerfpinDirectory.PROPERTY + "=/proc/self/perfpin"),
                "io.perfpin.apps.Service",
                "2",
                "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            String cpus = ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@1",
                    "--interval",
                    "100ms",
                    "--duration",
                    "1s"));
            assertEquals(ExitCode.ATTACH_FAILED, attach.code, attach.out + attach.err);
            assertTrue(attach.err.startsWith("perfpin attach: the agent did not start in process " + pid), attach.err);
            assertTrue(
                    attach.err.endsWith("; the agent that perfpin loaded is detached, leaving process " + pid
                            + " as perfpin found it\n"),
                    attach.err);
            assertLeftAsFound(service, cpus);
        }
    }

    /**
     * No perf_event descriptor, every thread on the CPUs it had, and only [perfpin] lines on the application's output.
     */
    private static void assertLeftAsFound(ChildJvm service, String cpus) throws Exception {
        DetachCommandTest.assertNothingOfPerfpinsIn(service.pid(), cpus);
        DetachCommandTest.assertOnlyPerfpinLines(service.endAndReadRest());
        Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
    }

    /** A second attach with other options never passes for the first: refused, or applied with --restart. */
    @Test
    void aSecondAttachWithOtherOptionsIsRefusedOrRestarts() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            int tid = service.tid("worker-0");
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            assertEquals(
                    0,
                    CliRun.capture(() -> Perfpin.run("attach", pid, "--threads", "worker-.*", "--duration", "300ms"))
                            .code);
            CliRun watching = CliRun.capture(() -> Perfpin.run("attach", pid, "--duration", "300ms"));
            assertEquals(0, watching.code, watching.err);
            assertTrue(
                    watching.err.contains("already runs in " + pid + " with these options; watching it"), watching.err);

            CliRun other = CliRun.capture(() ->
                    Perfpin.run("attach", pid, "--threads", "worker-.*", "--pin", "worker-0@1", "--duration", "300ms"));
            assertEquals(ExitCode.FAILURE, other.code, other.err);
            assertTrue(
                    other.err.startsWith("perfpin attach: the agent already runs in " + pid + " with other options"
                            + " ('threads=worker-.*;events=sched;quiet'): add --restart"),
                    other.err);
            assertEquals("0-1", ProcFiles.cpusAllowed(service.pid(), tid), "nothing was applied");

            CliRun restarted = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "worker-.*",
                    "--pin",
                    "worker-0@1",
                    "--interval",
                    "100ms",
                    "--duration",
                    "1s",
                    "--restart",
                    "--detach-on-exit"));
            assertEquals(0, restarted.code, restarted.out + restarted.err);
            assertTrue(
                    restarted.out.matches("(?s).*worker-0 +" + tid + " +1 .*"), "pinned to CPU 1:\n" + restarted.out);
            assertEquals("0-1", ProcFiles.cpusAllowed(service.pid(), tid), "and given its CPUs back at the detach");
            Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
        }
    }

    /**
     * A --restart with the --record the running agent records to is refused before anything is detached: the new
     * agent would replace that file, and what the first one recorded with it. Another --record keeps both.
     */
    @Test
    @Timeout(120)
    void aRestartIntoTheRunningAgentsRecordingIsRefused(@TempDir Path dir) throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            Path recording = dir.resolve("a.jsonl");
            CliRun first = CliRun.capture(() -> Perfpin.run(
                    "attach", pid, "--threads", "worker-.*", "--record", recording.toString(), "--duration", "300ms"));
            assertEquals(ExitCode.OK, first.code, first.out + first.err);
            // spelt otherwise: the same file all the same
            String sameFile = dir.resolve(".").resolve("a.jsonl").toString();
            CliRun same = CliRun.capture(() -> Perfpin.run(
                    "attach", pid, "--events", "task-clock", "--record", sameFile, "--restart", "--duration", "300ms"));
            assertEquals(ExitCode.FAILURE, same.code, same.out + same.err);
            assertEquals(
                    "perfpin attach: the agent in " + pid + " records to " + sameFile
                            + ", which --restart would replace with this attach's recording: give another --record\n",
                    same.err);
            assertEquals(
                    "threads=worker-.*;events=sched;out=" + recording + ";quiet",
                    AgentState.of(service.pid()).options().shown(),
                    "the first agent still runs, with its own options");

            Path other = dir.resolve("b.jsonl");
            CliRun restarted = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--events",
                    "task-clock",
                    "--record",
                    other.toString(),
                    "--restart",
                    "--duration",
                    "300ms",
                    "--detach-on-exit"));
            assertEquals(ExitCode.OK, restarted.code, restarted.out + restarted.err);
            for (Path file : List.of(recording, other)) {
                assertTrue(Files.readString(file).contains("\"name\":\"worker-0\""), file + " has worker-0's records");
            }
            Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
        }
    }

    /**
     * Root attaches to a JVM of another user's: that JVM reads a copy of the agent jar made as its own user in its
     * own private directory, its agent keeps its stats file where its own user's perfpin directory is, and root
     * finds it there.
     */
    @Test
    void rootAttachesToAnotherUsersJvm() throws Exception {
        Adversary other = Adversary.create();
        String classes = Paths.get(io.perfpin.apps.Service.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                other.can("test -r " + classes), "the other user cannot read " + classes);
        // setpriv and env exec the JVM, which has the pid the harness started
        try (ChildJvm jvm = ChildJvm.startCommand(other.asThisUser(
                "env",
                "-u",
                "XDG_RUNTIME_DIR",
                TestJvm.ownJava(),
                "-cp",
                classes,
                "io.perfpin.apps.Service",
                "1",
                "120"))) {
            jvm.await(Pattern.compile("ready"));
            String pid = Long.toString(jvm.pid());
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "worker-.*",
                    "--interval",
                    "100ms",
                    "--duration",
                    "1s",
                    "--detach-on-exit"));
            assertEquals(0, attach.code, attach.out + attach.err);
            assertTrue(attach.out.contains("\nworker-0 "), attach.out);
            Path stats = io.perfpin.jvm.AgentStatsFile.of(jvm.pid());
            assertEquals(Paths.get("/tmp/perfpin-" + Adversary.NAME, "jvms", pid + ".stats"), stats);
            assertEquals(other.uid, (int) Files.getAttribute(stats, "unix:uid"), "the JVM's user made it");
            Path jars = Paths.get("/tmp/perfpin-agent-" + other.uid);
            assertEquals(other.uid, (int) Files.getAttribute(jars, "unix:uid"));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jars)));
            try (java.util.stream.Stream<Path> copies = Files.list(jars)) {
                for (Path jar : (Iterable<Path>) copies::iterator) {
                    assertEquals(other.uid, (int) Files.getAttribute(jar, "unix:uid"));
                    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)));
                }
            }
        }
    }

    /**
     * A service of this user's with another XDG_RUNTIME_DIR than the viewer's shell: top finds its file all the same.
     */
    @Test
    void topFindsTheStatsFileWhereTheJvmsOwnEnvironmentPutsIt(@TempDir Path runtime) throws Exception {
        try (TestJvm jvm = TestJvm.main("io.perfpin.apps.Service")
                .jvmOptions(
                        "-javaagent:" + AgentJar.forThisUser() + "=threads=worker-.*;events=task-clock;interval=100ms")
                .classPath(ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")))
                .args("1", "120")
                .environment("XDG_RUNTIME_DIR", runtime.toString())
                .mergeStderr()
                .start()) {
            jvm.await(Pattern.compile("ready"));
            Path stats = runtime.resolve("perfpin-" + System.getProperty("user.name"))
                    .resolve("jvms")
                    .resolve(jvm.pid() + ".stats");
            assertEquals(stats, io.perfpin.jvm.AgentStatsFile.of(jvm.pid()));
            ChildJvm.awaitInStatsFile(stats, "worker-0");
            CliRun top = CliRun.capture(() -> Perfpin.run("top", Long.toString(jvm.pid()), "--duration", "500ms"));
            assertEquals(0, top.code, top.err);
            assertTrue(top.out.contains("\nworker-0 "), top.out);
        }
    }

    /** A JVM that accepts no attach: attach and stat say so in one line each and exit 7; the JVM prints nothing. */
    @Test
    void aJvmWithAttachDisabledIsOneLineAndExit7() throws Exception {
        try (ChildJvm service =
                ChildJvm.startWith(List.of("-XX:+DisableAttachMechanism"), "io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            String refusal =
                    "process " + pid + " (java) runs with -XX:+DisableAttachMechanism: it accepts no attach (no"
                            + " agent, no thread dump). Start it with -javaagent: instead, or without that flag";
            CliRun attach = CliRun.capture(() -> Perfpin.run("attach", pid, "--duration", "1s"));
            assertEquals(ExitCode.ATTACH_FAILED, attach.code, attach.err);
            assertEquals("perfpin attach: " + refusal + "\n", attach.err);
            CliRun stat = CliRun.capture(() -> Perfpin.run("stat", pid, "--duration", "200ms"));
            assertEquals(ExitCode.ATTACH_FAILED, stat.code, stat.err);
            assertEquals("perfpin stat: " + refusal + "\n", stat.err);
            assertEquals(List.of(), service.endAndReadRest(), "no signal reached it, so it printed no thread dump");
        }
    }

    /**
     * What the agent could not take is refused before it is loaded: an --interval its stats file does not allow (exit
     * 2), a --record it could not write (exit 1). The JVM is left as it was: it maps no Java agent.
     */
    @Test
    void anIntervalOrARecordingTheAgentCouldNotTakeLoadsNothing() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            CliRun fast = CliRun.capture(() -> Perfpin.run("attach", pid, "--interval", "100ns", "--duration", "1s"));
            assertEquals(ExitCode.USAGE, fast.code, fast.err);
            assertEquals(
                    "perfpin attach: --interval 100ns: the agent's stats file, which this command's live view reads,"
                            + " takes 1ms to 60m\n",
                    fast.err);
            CliRun proc =
                    CliRun.capture(() -> Perfpin.run("attach", pid, "--record", "/proc/self/x", "--duration", "1s"));
            assertEquals(ExitCode.FAILURE, proc.code, proc.err);
            assertTrue(proc.err.startsWith("perfpin attach: --record: /proc/self/x is on proc"), proc.err);
            assertFalse(Files.readString(Path.of("/proc", pid, "maps")).contains("libinstrument"), "no agent loaded");
        }
    }

    /**
     * A JVM that turns attach off from an argument file (its command line does not show it) is known by its own
     * hsperfdata file, the one it maps, whatever /tmp holds beside it: once, a thousand directories named
     * {@code hsperfdata_*} there (any user may make them) hid that file, and attach signalled the JVM.
     */
    @Test
    void aJvmWithAttachDisabledInAnArgumentFileIsRefusedWhateverTmpHolds(@TempDir Path dir) throws Exception {
        Path arguments = Files.writeString(dir.resolve("jvm.args"), "-XX:+DisableAttachMechanism\n");
        List<Path> decoys = new ArrayList<>();
        try (ChildJvm service = ChildJvm.startWith(List.of("@" + arguments), "io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            for (int i = 0; i < 1_000; i++) {
                decoys.add(
                        Files.createDirectory(Path.of("/tmp", "hsperfdata_perfpin-decoy-" + service.pid() + "-" + i)));
            }
            String pid = Long.toString(service.pid());
            CliRun attach = CliRun.capture(() -> Perfpin.run("attach", pid, "--duration", "1s"));
            assertEquals(ExitCode.ATTACH_FAILED, attach.code, attach.err);
            assertTrue(attach.err.contains("runs with -XX:+DisableAttachMechanism: it accepts no attach"), attach.err);
            assertEquals(List.of(), service.endAndReadRest(), "no signal reached it, so it printed no thread dump");
        } finally {
            for (Path decoy : decoys) {
                Files.deleteIfExists(decoy);
            }
        }
    }

    @Test
    void attachExits1WhenNoneOfItsThreadsCouldBeCountedAndSaysWhyInEveryView(@TempDir Path dir) throws Exception {
        Path recording = dir.resolve("starved.jsonl");
        // Room for the recording and one event held switched on: none for a thread's six sched events.
        try (ChildJvm service = ChildJvm.withAgent(
                "fds=2;threads=worker-.*;events=sched;interval=100ms;out=" + recording,
                "io.perfpin.apps.Service",
                "2",
                "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            String why = "2, out of file descriptors (perfpin may hold 2: agent option fds=)";
            try {
                CliRun run = CliRun.capture(() -> Perfpin.run(
                        "attach", pid, "--threads", "worker-.*", "--interval", "200ms", "--duration", "1s"));
                assertEquals(ExitCode.FAILURE, run.code, run.err);
                // A frame before the agent's second sample covers the counts since each thread was enrolled.
                assertTrue(
                        run.out.matches("(?s).*  live threads: 0, (counts over the last [0-9.]+ s \\(\\d+ agent"
                                + " samples?\\)|counts since each thread was enrolled) ---\nthreads not counted: "
                                + Pattern.quote(why) + "\n.*"),
                        "in each frame's summary line:\n" + run.out);
                assertTrue(run.out.contains("\nThreads not counted: " + why + "\n"), "and in the totals:\n" + run.out);
                assertTrue(
                        run.err.endsWith("perfpin attach: none of the selected threads could be counted; threads"
                                + " not counted: " + why + "\n"),
                        run.err);
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(service.pid()));
            }
        }
        CliRun report = CliRun.capture(() -> Perfpin.run("report", recording.toString()));
        assertEquals(ExitCode.OK, report.code, report.err);
        assertTrue(
                report.out.contains("\nThreads not counted:\n  2 threads: perfpin's share of this process's file"
                        + " descriptors (2, fds=2 of the "),
                report.out);
    }

    @Test
    void runReturnsTheApplicationsExitCodeAfterItsSummary() {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = io.perfpin.apps.PageToucher.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .getPath();
        CliRun run = CliRun.capture(() -> Perfpin.run(
                "run", "--threads", "main", "--", java, "-cp", classPath, "io.perfpin.apps.PageToucher", "16"));
        assertEquals(0, run.code, run.err);
        assertTrue(run.out.contains("Totals per thread"), run.out);
        assertTrue(run.out.matches("(?s).*\\nmain +\\d+ .*"), "the main thread's totals:\n" + run.out);
        Matcher recorded = Pattern.compile("Recorded in (\\S+) ").matcher(run.out);
        assertTrue(recorded.find(), run.out);
        CliRun report = CliRun.capture(() -> Perfpin.run("report", recorded.group(1), "--format", "json"));
        assertEquals(0, report.code, report.err);
        // Read as perfpin reads its records: a field missing, or of the wrong kind, fails naming it.
        ThreadRecord main = report.out
                .lines()
                .map(l -> (Map<?, ?>) JsonReader.parse(l))
                .filter(r -> "main".equals(r.get("name")))
                .map(ThreadRecord::fromJson)
                .findFirst()
                .orElseThrow();
        assertTrue(main.isFinal(), "main's final record");
        assertEquals(1, main.report().javaId());
        long faults = main.report().counters().get("page-faults");
        // main is counted from premain on: its 4096 pages, and what starting the application costs it.
        assertTrue(faults >= 4096, "16 MiB touched by main: " + faults + " faults");
    }

    @Test
    void aBadPidAndANonJvmHaveTheirExitCodes() throws Exception {
        assertEquals(ExitCode.NO_SUCH_PROCESS, CliRun.capture(() -> Perfpin.run("attach", "999999999")).code);
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            CliRun run = CliRun.capture(() -> Perfpin.run("attach", Long.toString(sleep.pid())));
            assertEquals(ExitCode.NOT_A_JVM, run.code, run.err);
        } finally {
            sleep.destroy();
        }
    }
}
