package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.PerfpinDirectory;
import io.perfpin.counter.CounterGroup;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.event.EventParser;
import io.perfpin.jvm.AgentJar;
import io.perfpin.jvm.AgentPresence;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.testkit.PerfEventDescriptors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ExitCode} is the one table of exit codes: the table in docs/cli.md is it, and each code each command can
 * return is had by a real run here. Elsewhere: 7 in {@code AttachCommandTest.aJvmWithAttachDisabledIsOneLineAndExit7}
 * (attach, stat) and {@code ContainerAttachTest}, 8 in {@code StatExecTest}, detach's 6 also in
 * {@code DetachCommandTest}.
 */
@Timeout(300)
class ExitCodeTest {
    /** The commands that take a JVM's pid. */
    private static final List<String> ON_A_PID = List.of("top", "attach", "detach", "stat");

    private static final Pattern TABLE_ROW = Pattern.compile("\\| (\\d+) \\| (.*) \\|");

    @TempDir
    Path dir;

    @Test
    void theCliPagesExitCodeTableIsExitCodesTable() throws Exception {
        String page = Files.readString(Paths.get("..", "docs", "cli.md"));
        int table = page.indexOf("## Exit codes\n\n| code | meaning |\n|---|---|\n");
        assertTrue(table >= 0, "docs/cli.md has its exit-code table");
        List<String> rows = new ArrayList<>();
        for (String line : page.substring(table).split("\n")) {
            Matcher row = TABLE_ROW.matcher(line);
            if (row.matches()) {
                rows.add(row.group(1) + " " + row.group(2));
            } else if (!rows.isEmpty()) {
                break;
            }
        }
        List<String> codes = new ArrayList<>();
        ExitCode.TABLE.forEach(e -> codes.add(e.code() + " " + e.meaning()));
        assertEquals(codes, rows);
        for (int code = 0; code <= ExitCode.PROCESS_CHANGED; code++) {
            assertEquals(code, ExitCode.TABLE.get(code).code(), "every code of perfpin's own from 0, in order");
        }
        assertEquals(
                List.of(ExitCode.INTERRUPTED, ExitCode.TERMINATED),
                ExitCode.TABLE.subList(ExitCode.PROCESS_CHANGED + 1, ExitCode.TABLE.size()).stream()
                        .map(ExitCode.Entry::code)
                        .toList(),
                "then the signals' own");
    }

    @Test
    void theHelpListsEveryCode() {
        CliRun help = CliRun.capture(() -> Perfpin.run("--help"));
        assertEquals(ExitCode.OK, help.code, help.err);
        assertTrue(help.out.contains("Exit codes:\n"), help.out);
        for (ExitCode.Entry entry : ExitCode.TABLE) {
            assertTrue(
                    Pattern.compile("(?m)^ +" + entry.code() + " +" + Pattern.quote(entry.summary()) + "$")
                            .matcher(help.out)
                            .find(),
                    entry + " in\n" + help.out);
        }
    }

    @Test
    void everyCommandSaysABadOptionInOneLineWithExitCode2() {
        for (String command :
                List.of("top", "attach", "detach", "run", "stat", "report", "list", "events", "topology", "demo")) {
            CliRun run = CliRun.capture(() -> Perfpin.run(command, "--no-such-option"));
            assertEquals(ExitCode.USAGE, run.code, command + ": " + run.err);
            // attach asks its PID first; the others name the option
            assertTrue(run.err.startsWith("perfpin " + command + ": "), command + ": " + run.err);
            assertEquals(1, run.err.strip().split("\n").length, run.err);
        }
    }

    @Test
    void aPidOfNoProcessIsExitCode3AndOfNoJvm4ForEveryCommandOnAPid() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(30, TimeUnit.SECONDS), "true ended");
        Process sleep = new ProcessBuilder("sleep", "120").start();
        try {
            for (String command : ON_A_PID) {
                CliRun none = CliRun.capture(() -> Perfpin.run(command, Long.toString(gone.pid())));
                assertEquals(ExitCode.NO_SUCH_PROCESS, none.code, command + ": " + none.err);
                assertEquals("perfpin " + command + ": no process with pid " + gone.pid() + "\n", none.err);

                CliRun notJvm = CliRun.capture(() -> Perfpin.run(command, Long.toString(sleep.pid())));
                assertEquals(ExitCode.NOT_A_JVM, notJvm.code, command + ": " + notJvm.err);
                assertEquals(
                        "perfpin " + command + ": process " + sleep.pid() + " (sleep) is not a HotSpot JVM: it"
                                + " has no libjvm.so loaded\n",
                        notJvm.err);
            }
            assertTrue(sleep.isAlive(), "no command signalled a process that is not a JVM");
        } finally {
            sleep.destroyForcibly().waitFor();
        }
    }

    /** top's 6: a JVM that never ran an agent, and one whose agent detached, whose closed file holds old totals. */
    @Test
    void topOfAJvmWithoutAnAgentOrAfterDetachIsExitCode6() throws Exception {
        try (ChildJvm plain = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            plain.await(Pattern.compile("ready"));
            String pid = Long.toString(plain.pid());
            CliRun top = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "1s"));
            assertEquals(ExitCode.NO_AGENT, top.code, top.err);
            assertTrue(
                    top.err.startsWith("perfpin top: process " + pid + " runs no perfpin agent (no stats file at "),
                    top.err);
            CliRun detach = CliRun.capture(() -> Perfpin.run("detach", pid));
            assertEquals(ExitCode.NO_AGENT, detach.code, detach.err);
        }
        try (ChildJvm service =
                ChildJvm.withAgent("threads=worker-.*;interval=100ms", "io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            Path stats = PerfpinDirectory.statsFile(service.pid());
            try {
                // its stats file made (100 ms after the agent's start, which runs beside main): detached sooner, an
                // agent leaves none, and top has no closed file to find
                AgentSession.awaitAgent(service.pid(), null);
                CliRun detach = CliRun.capture(() -> Perfpin.run("detach", pid));
                assertEquals(ExitCode.OK, detach.code, detach.err);
                assertTrue(Files.exists(stats), "the agent leaves its closed stats file: " + stats);
                CliRun top = CliRun.capture(() -> Perfpin.run("top", pid, "--duration", "1s"));
                assertEquals(ExitCode.NO_AGENT, top.code, top.out + top.err);
                assertEquals(
                        "perfpin top: process " + pid + " runs no perfpin agent (its stats file " + stats
                                + " is closed: the agent detached): start it with -javaagent:<path to"
                                + " perfpin-agent.jar>, or perfpin attach " + pid + "\n",
                        top.err);
                assertEquals("", top.out, "no old totals");
                assertEquals(0, PerfEventDescriptors.of(service.pid()), "detached");
            } finally {
                Files.deleteIfExists(stats);
            }
        }
    }

    /**
     * A JVM that accepts no attach (-XX:+DisableAttachMechanism): detach cannot reach an agent started in it with
     * -javaagent:, exit 7, and does not tell the user to start it that way; where no agent runs, exit 6, and
     * perfpin attach, which could load none, is not suggested. Neither JVM got a signal (no thread dump).
     */
    @Test
    void detachOfAJvmThatAcceptsNoAttachIsExit7WithAnAgentAnd6WithoutAndSuggestsNothingItCannotDo() throws Exception {
        String disabled = "-XX:+DisableAttachMechanism";
        String agent = "-javaagent:" + AgentJar.forThisUser() + "=threads=worker-.*;interval=100ms";
        try (ChildJvm service = ChildJvm.startWith(List.of(disabled, agent), "io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            long pid = service.pid();
            try {
                AgentSession.awaitAgent(pid, null);
                long counting = PerfEventDescriptors.settled(pid); // its worker enrolled
                CliRun detach = CliRun.capture(() -> Perfpin.run("detach", Long.toString(pid)));
                assertEquals(ExitCode.ATTACH_FAILED, detach.code, detach.err);
                assertEquals(
                        "perfpin detach: process " + pid + " (java) runs with " + disabled + ": it accepts no attach"
                                + " (no agent, no thread dump). The Java agent it was started with cannot be asked"
                                + " anything from outside and runs until it exits; restart it without that flag to"
                                + " detach it\n",
                        detach.err);
                assertTrue(counting > 0, "its agent counts");
                assertEquals(counting, PerfEventDescriptors.of(pid), "and still does, left as it was");
            } finally {
                Files.deleteIfExists(PerfpinDirectory.statsFile(pid));
            }
            DetachCommandTest.assertOnlyPerfpinLines(service.endAndReadRest());
        }
        try (ChildJvm plain = ChildJvm.startWith(List.of(disabled), "io.perfpin.apps.Service", "1", "120")) {
            plain.await(Pattern.compile("ready"));
            String pid = Long.toString(plain.pid());
            CliRun detach = CliRun.capture(() -> Perfpin.run("detach", pid));
            assertEquals(ExitCode.NO_AGENT, detach.code, detach.err);
            assertEquals(
                    "perfpin detach: process " + pid + " runs no perfpin agent: start it with -javaagent:<path to"
                            + " perfpin-agent.jar> (it runs with " + disabled + ": perfpin attach cannot load one)\n",
                    detach.err);
            assertEquals(List.of(), plain.endAndReadRest(), "no signal reached it, so it printed no thread dump");
        }
    }

    /**
     * detach's 1: the JVM says through its attach channel that an agent runs (its perfpin.agent property), the
     * request is taken, and the agent still runs as far as the JVM says: here a JVM whose Java agent refused its
     * options, and whose property claims one runs. The agent's refusal is on the JVM's stderr, as the message says.
     */
    @Test
    void detachThatLeavesAnAgentRunningIsExit1() throws Exception {
        List<String> options = List.of(
                "-D" + AgentPresence.PROPERTY + "=" + AgentPresence.RUNNING,
                "-javaagent:" + AgentJar.forThisUser() + "=no-such-option=1");
        try (ChildJvm service = ChildJvm.startWith(options, "io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            CliRun detach = CliRun.capture(() -> Perfpin.run("detach", pid));
            assertEquals(ExitCode.FAILURE, detach.code, detach.err);
            assertEquals(
                    "perfpin detach: process " + pid + " took the detach request, but its agent still runs; its"
                            + " stderr says why\n",
                    detach.err);
            service.await(Pattern.compile("\\[perfpin\\].*detach: the agent does not run in this JVM"));
        }
    }

    /** stat's 1: a placement that cannot be had, isolated CPUs on a machine without any; nothing left pinned. */
    @Test
    void statWithAPlacementThatCannotBeHadIsExit1() throws Exception {
        CpuTopology machine = CpuTopology.live();
        assumeTrue(machine.isolated().union(machine.nohzFull()).isEmpty(), "needs a machine without isolated CPUs");
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            long pid = service.pid();
            String cpus = ProcFiles.cpusAllowed(pid, (int) pid);
            CliRun stat = CliRun.capture(
                    () -> Perfpin.run("stat", Long.toString(pid), "--pin", "main@isolated", "--duration", "200ms"));
            assertEquals(ExitCode.FAILURE, stat.code, stat.out + stat.err);
            assertEquals(1, stat.err.lines().count(), stat.err);
            assertTrue(stat.err.startsWith("perfpin stat: ") && stat.err.contains("isolated"), stat.err);
            assertEquals(cpus, ProcFiles.cpusAllowed(pid, (int) pid), "its main thread left on its CPUs");
            assertEquals(0, PerfEventDescriptors.of(pid), "nothing counted from inside it");
        }
    }

    /** Another user's JVM, seen by a user without privilege: 5 for each command on a pid, and nothing done to it. */
    @Test
    void anotherUsersJvmIsExitCode5() throws Exception {
        try (UnprivilegedService user = UnprivilegedService.start(1);
                ChildJvm rootJvm = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            rootJvm.await(Pattern.compile("ready"));
            String pid = Long.toString(rootJvm.pid());
            for (String command : ON_A_PID) {
                try (ChildJvm perfpin = user.startPerfpin(command, pid)) {
                    assertEquals(ExitCode.PERMISSION_DENIED, perfpin.awaitExit(), command + ": " + perfpin.lines());
                    assertTrue(
                            perfpin.lines().stream().anyMatch(l -> l.startsWith("perfpin " + command + ": ")),
                            perfpin.lines().toString());
                }
            }
            assertEquals(0, PerfEventDescriptors.of(rootJvm.pid()), "nothing counted it");
        }
    }

    @Test
    void reportRunListEventsTopologyEndWith0Or1AsTheyFare() throws Exception {
        Path missing = dir.resolve("missing.jsonl");
        CliRun report = CliRun.capture(() -> Perfpin.run("report", missing.toString()));
        assertEquals(ExitCode.FAILURE, report.code, report.out + report.err);
        assertEquals(1, report.err.strip().split("\n").length, report.err);

        Path record = dir; // a directory: not a file the agent may record to
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        CliRun run = CliRun.capture(() -> Perfpin.run("run", "--record", record.toString(), "--", java, "-version"));
        assertEquals(ExitCode.FAILURE, run.code, run.err);
        assertTrue(run.err.startsWith("perfpin run: --record: "), run.err);
        assertEquals(1, run.err.strip().split("\n").length, run.err);

        for (String command : List.of("list", "events", "topology")) {
            CliRun ok = CliRun.capture(() -> Perfpin.run(command));
            assertEquals(ExitCode.OK, ok.code, command + ": " + ok.err);
        }
    }

    /** demo with nothing it can count would show tables of nothing for 20 s: refused before it runs anything. */
    @Test
    void aDemoWithNothingCountableIsExitCode2BeforeItRuns() {
        Syscalls syscalls = Backends.syscalls();
        try (CounterGroup probe = CounterGroup.open(
                syscalls,
                syscalls.gettid(),
                List.of(new EventParser().parse("cycles"), new EventParser().parse("instructions")))) {
            assumeTrue(probe.unsupported().size() == 2, "this machine counts cycles or instructions");
        }
        CliRun demo = CliRun.capture(() -> Perfpin.run("demo", "--events", "cycles,instructions"));
        assertEquals(ExitCode.USAGE, demo.code, demo.err);
        assertEquals("", demo.out, "nothing ran");
        assertTrue(
                demo.err.matches("perfpin demo: --events cycles,instructions: nothing to count, none of its events"
                        + " can be counted on this machine \\(cycles, instructions: .+\\); software events can, e.g."
                        + " --events sched\n"),
                demo.err);
        assertFalse(demo.err.contains("the others are"), demo.err);
    }
}
