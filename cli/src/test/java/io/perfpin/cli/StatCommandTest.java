package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.report.JsonReader;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadReport;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class StatCommandTest {
    private static final Pattern WORKER = Pattern.compile("thread (worker-\\d+) tid (\\d+)");
    private static ChildJvm service;
    private static final Map<String, Integer> TIDS = new HashMap<>();

    @BeforeAll
    static void startService() throws Exception {
        service = ChildJvm.start("io.perfpin.apps.Service", "2", "120");
        for (int i = 0; i < 2; i++) {
            Matcher m = service.await(WORKER);
            TIDS.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        service.await(Pattern.compile("ready"));
    }

    @AfterAll
    static void stopService() throws Exception {
        service.close();
    }

    @Test
    void countsAnotherJvmsThreadsFromOutsideNamedByItsThreadDump() {
        List<ThreadReport> reports = stat("--threads", "worker-.*", "--events", "sched", "--duration", "300ms");
        assertEquals(2, reports.size());
        for (ThreadReport r : reports) {
            assertEquals(TIDS.get(r.name()), r.tid(), r.name());
            assertTrue(r.counters().get("task-clock") > 0, r.name());
            // Each worker naps for 1 ms per loop, so it is switched out again and again.
            assertTrue(r.counters().get("context-switches") > 10, r.name());
            assertEquals(Map.of(), r.unsupported());
        }
    }

    /** As perf stat's "seconds time elapsed": the line after the table says what its counts cover, on one clock. */
    @Test
    void theTableIsFollowedByTheWindowItsCountsCover() {
        CliRun run = CliRun.capture(() ->
                Perfpin.run("stat", Long.toString(service.pid()), "--threads", "worker-.*", "--duration", "300ms"));
        assertEquals(ExitCode.OK, run.code, run.err);
        List<String> lines = run.out.lines().collect(Collectors.toList());
        assertTrue(lines.get(0).startsWith("thread "), run.out);
        Matcher window = Pattern.compile("counts over (\\d+\\.\\d{3}) s \\(from (\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) to"
                        + " (\\d\\d:\\d\\d:\\d\\d\\.\\d{3})\\)")
                .matcher(lines.get(3));
        assertTrue(window.matches(), "right after the header and the 2 workers' rows:\n" + run.out);
        long millis = Duration.between(LocalTime.parse(window.group(2)), LocalTime.parse(window.group(3)))
                .toMillis();
        long said = Math.round(Double.parseDouble(window.group(1)) * 1000);
        assertTrue(Math.abs(millis - said) <= 1, "from and to are the length apart: " + lines.get(3));
    }

    @Test
    void pinsTheChosenThreadsWhileCountingAndGivesThemTheirCpusBack() throws Exception {
        ThreadAffinity affinity = ThreadAffinity.system();
        int tid = TIDS.get("worker-0");
        String before = affinity.get(tid).toString();
        assumeTrue(affinity.get(tid).contains(1) && affinity.get(tid).size() > 1, "needs CPU 1 and another");

        List<ThreadReport> reports = stat("--threads", "worker-0", "--pin", "worker-0@1", "--duration", "200ms");

        assertEquals(1, reports.size());
        assertEquals("1", reports.get(0).cpus(), "the pinned CPUs are shown");
        // Pinned before counting: stat waits a while for the thread to run on its new CPU, and a thread that did
        // not run meanwhile (a loaded machine) moves at its next wake-up, which the kernel counts once.
        assertTrue(
                reports.get(0).counters().get("cpu-migrations") <= 1,
                "pinned before counting: " + reports.get(0).counters());
        assertEquals(before, affinity.get(tid).toString(), "its CPUs given back");
        assertEquals(
                List.of(),
                ProcessHandle.current()
                        .children()
                        .filter(child -> "perfpin-pins".equals(ProcFiles.command(child.pid())))
                        .toList(),
                "the watchdog that would have restored them exited, and was reaped");
    }

    @Test
    void aBadPinRuleOrEventIsOneLineNamingItWithExitCode2() {
        CliRun pin = CliRun.capture(() -> Perfpin.run("stat", "--pid", "1", "--pin", "worker@cores"));
        assertEquals(ExitCode.USAGE, pin.code);
        assertEquals(
                "perfpin stat: --pin: bad pin rule 'worker@cores': bad placement 'cores': expected a CPU list"
                        + " like 2-3 or 0,4, or one of isolated, core, any; did you mean 'core'? (see perfpin stat"
                        + " --help)\n",
                pin.err);
        CliRun event = CliRun.capture(() -> Perfpin.run("stat", "--pid", "1", "--events", "sched,cotnext-switches"));
        assertEquals(ExitCode.USAGE, event.code);
        assertEquals(1, event.err.strip().split("\n").length, event.err);
        assertTrue(event.err.contains("'cotnext-switches'") && event.err.contains("context-switches"), event.err);
        CliRun fds = CliRun.capture(() -> Perfpin.run("stat", "--pid", "1", "--fds", "0%"));
        assertEquals(ExitCode.USAGE, fds.code);
        assertEquals(
                "perfpin stat: --fds: bad share '0%': expected a share of the free file descriptors from 1% to"
                        + " 100% (e.g. 25%), or a number of them (e.g. 4000) (see perfpin stat --help)\n",
                fds.err);
        CliRun virtual = CliRun.capture(() -> Perfpin.run("stat", "--pid", "1", "--virtual", "handler-.*"));
        assertEquals(ExitCode.USAGE, virtual.code);
        assertEquals(
                "perfpin stat: --virtual 'handler-.*': stat counts from outside, where the kernel sees only the"
                        + " carrier threads a virtual thread runs on; count virtual threads with the agent: perfpin"
                        + " attach PID --virtual REGEX\n",
                virtual.err);
    }

    @Test
    void aPidWithNoProcessAndAProcessThatIsNoJvmHaveTheirOwnExitCodes() throws Exception {
        CliRun missing = CliRun.capture(() -> Perfpin.run("stat", "--pid", "99999999"));
        assertEquals(ExitCode.NO_SUCH_PROCESS, missing.code, missing.err);
        assertEquals(1, missing.err.strip().split("\n").length, missing.err);

        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            CliRun notJvm = CliRun.capture(() -> Perfpin.run("stat", "--pid", Long.toString(sleep.pid())));
            assertEquals(ExitCode.NOT_A_JVM, notJvm.code, notJvm.err);
            assertTrue(notJvm.err.contains("not a HotSpot JVM"), notJvm.err);
            assertTrue(sleep.isAlive(), "perfpin never harms a process that is not a JVM");
        } finally {
            sleep.destroy();
        }
    }

    private static List<ThreadReport> stat(String... options) {
        List<String> args = new ArrayList<>(List.of("stat", "--pid", Long.toString(service.pid()), "--format", "json"));
        args.addAll(List.of(options));
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(new String[0])));
        assertEquals(ExitCode.OK, run.code, run.err);
        List<ThreadReport> reports = new ArrayList<>();
        for (String line : run.out.strip().split("\n")) {
            ThreadRecord record = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(line));
            assertTrue(record.isFinal(), line);
            reports.add(record.report());
        }
        return reports;
    }
}
