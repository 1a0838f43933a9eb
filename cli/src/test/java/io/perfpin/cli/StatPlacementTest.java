package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.jvm.AgentJar;
import io.perfpin.report.JsonReader;
import io.perfpin.report.PinSource;
import io.perfpin.report.ThreadRecord;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code stat --pin} places threads within the CPUs the counted process may use, its affinity and its cgroup's
 * cpuset, as the agent does inside it, not within perfpin's own: a rule outside them is refused before anything
 * is pinned, with the agent's message and exit code 2, and a rule inside them pins.
 */
class StatPlacementTest {
    private static final Pattern WORKER = Pattern.compile("thread (worker-\\d+) tid (\\d+)");
    private static final Pattern AGENT_REFUSAL =
            Pattern.compile("\\[perfpin] cannot pin thread 'worker-0' \\(0\\): (.*)");

    @Test
    void aProcessStartedUnderTasksetIsPinnedOnlyWithinItsCpusAndRefusedOthersAsTheAgentRefusesThem() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs CPUs 0 and 1");
        // The agent inside the same JVM says what it makes of the same rule.
        try (ChildJvm service = ChildJvm.startUnder(
                List.of("taskset", "-c", "1"),
                List.of("-javaagent:" + AgentJar.forThisUser() + "=pin=worker-0@0;threads=worker-.*"),
                "io.perfpin.apps.Service",
                "2",
                "120")) {
            int tid = workerTid(service);
            // Said as worker-0 started, before it printed its TID.
            String agentSays = service.lines().stream()
                    .map(AGENT_REFUSAL::matcher)
                    .filter(Matcher::matches)
                    .map(m -> m.group(1))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the agent refused nothing: " + service.lines()));
            assertEquals(
                    "placement 0: CPU 0 is outside the CPUs this process may use, 1 (affinity 1, cgroup cpuset "
                            + cgroupCpus(agentSays) + ")",
                    agentSays);

            assertRefusedThenPinnedWithin(service, tid, "perfpin stat: " + agentSays + "\n");
        }
    }

    @Test
    void aProcessInACpusetCgroupIsPinnedOnlyWithinItsCpuset() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs CPUs 0 and 1");
        try (CpusetCgroup cgroup = CpusetCgroup.create("1")) {
            try (ChildJvm service =
                    ChildJvm.startUnder(cgroup.launcher(), List.of(), "io.perfpin.apps.Service", "2", "120")) {
                int tid = workerTid(service);
                String affinity = ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
                assertEquals("1", ProcFiles.cpusAllowed(service.pid(), tid), "the cpuset bounds its threads");

                assertRefusedThenPinnedWithin(
                        service,
                        tid,
                        "perfpin stat: placement 0: CPU 0 is outside the CPUs this" + " process may use, 1 (affinity "
                                + affinity + ", cgroup cpuset 1)\n");
            }
        }
    }

    /** {@code --pin worker-0@0} is refused with {@code message}, leaving it as it was; {@code @1} pins it there. */
    private static void assertRefusedThenPinnedWithin(ChildJvm service, int tid, String message) {
        String pid = Long.toString(service.pid());
        CliRun refused = CliRun.capture(() -> Perfpin.run(
                "stat", "--pid", pid, "--threads", "worker-0", "--pin", "worker-0@0", "--duration", "100ms"));
        assertEquals(ExitCode.USAGE, refused.code, refused.err);
        assertEquals(message, refused.err);
        assertEquals("", refused.out, "nothing counted");
        assertEquals("1", ProcFiles.cpusAllowed(service.pid(), tid), "left as it was");

        CliRun pinned = CliRun.capture(() -> Perfpin.run(
                "stat",
                "--pid",
                pid,
                "--threads",
                "worker-0",
                "--pin",
                "worker-0@1",
                "--duration",
                "100ms",
                "--format",
                "json"));
        assertEquals(ExitCode.OK, pinned.code, pinned.err);
        // Hints follow on standard error, beside JSON: a thread sharing CPU 1 with others is preempted.
        assertEquals(
                "perfpin stat: pinned 'worker-0' (tid " + tid + ") to CPU 1 by --pin 'worker-0@1' while" + " counting",
                pinned.err.lines().findFirst().orElse(""),
                pinned.err);
        ThreadRecord record = ThreadRecord.fromJson((Map<?, ?>) JsonReader.parse(pinned.out.strip()));
        assertEquals("1", record.report().cpus());
        assertEquals(PinSource.PERFPIN, record.report().pin(), "stat records the pin it set: " + pinned.out);
        assertEquals("1", ProcFiles.cpusAllowed(service.pid(), tid));
    }

    /**
     * A thread the process's own affinity keeps on one CPU counts as pinned for the hints, as one stat pinned does:
     * two spinning threads sharing CPU 0 preempt each other, and the hint says so from the status files stat read
     * before and after.
     */
    @Test
    void aThreadAllowedOneCpuThatItSharesIsToldPreempted() throws Exception {
        try (ChildJvm service =
                ChildJvm.startUnder(List.of("taskset", "-c", "0"), List.of(), "io.perfpin.apps.Service", "0", "120")) {
            service.await(Pattern.compile("ready"));
            service.send("spin spin-a");
            service.send("spin spin-b");
            service.await(Pattern.compile("thread spin-a tid \\d+"));
            service.await(Pattern.compile("thread spin-b tid \\d+"));

            CliRun run = CliRun.capture(() ->
                    Perfpin.run("stat", Long.toString(service.pid()), "--threads", "spin-a", "--duration", "300ms"));

            assertEquals(ExitCode.OK, run.code, run.err);
            assertTrue(
                    Pattern.compile("thread 'spin-a': preempted \\d+ times? on CPU 0")
                            .matcher(run.out + run.err)
                            .find(),
                    run.out + run.err);
        }
    }

    /**
     * worker-0's TID, once the service is ready: the service says so once its threads have started, and a thread
     * whose pin the agent refused first may print its TID after that.
     */
    private static int workerTid(ChildJvm service) throws IOException {
        service.await(Pattern.compile("ready"));
        OptionalInt seen = service.lines().stream()
                .map(WORKER::matcher)
                .filter(m -> m.matches() && m.group(1).equals("worker-0"))
                .mapToInt(m -> Integer.parseInt(m.group(2)))
                .findFirst();
        return seen.isPresent()
                ? seen.getAsInt()
                : Integer.parseInt(service.await(Pattern.compile("thread worker-0 tid (\\d+)"))
                        .group(1));
    }

    /** The cgroup cpuset that the agent's message names, which is the machine's, whatever it is. */
    private static String cgroupCpus(String message) {
        Matcher m = Pattern.compile(".*, cgroup cpuset (\\S+)\\)").matcher(message);
        return m.matches() ? m.group(1) : "(none in: " + message + ")";
    }
}
