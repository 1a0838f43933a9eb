package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.jvm.AgentLoader;
import io.perfpin.testkit.PerfEventDescriptors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fifty attach/detach cycles on one JVM leave it as they found it: its threads, its descriptors but the agent
 * jar's, and its memory within a bound that does not grow with the cycles; and nothing on its output but the
 * JVM's own warning about dynamically loaded agents (JDK 21 and newer). Cycles while threads start and end all the
 * while leave no counter open either.
 *
 * <p>The JVM runs with a fixed, pre-touched heap and the serial collector, and without dynamic compiler threads,
 * so that neither its heap's first use nor the JVM's own on-demand threads pass for the agent's. Its resident
 * memory is read after {@code jcmd System.trim_native_heap}: glibc keeps what is freed (the JIT compiler's
 * scratch memory, 20 MiB at times) until then, and that is glibc's, not the agent's.
 */
class AttachCyclesIT {
    private static final int CYCLES = 50;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String OPTIONS = "threads=worker-.*;pin=worker-1@1;events=sched;interval=50ms;out=";
    /**
     * Measured here from cycle 1 to cycle 50: 3 MiB on JDK 17 and 25, the JIT's code and profiles for the agent,
     * as more of its methods get hot, and the JVM's own state for each load (JPLIS makes two JVMTI environments
     * that it never disposes of, about 6 KiB a cycle with their per-thread state).
     */
    private static final long BOUND_AFTER_FIRST_CYCLE_KIB = 16 * 1024;
    /**
     * Measured here from cycle 10 to cycle 50: 2 MiB, 50 KiB a cycle and falling as the JIT runs out of methods to
     * compile. A cost of 200 KiB a cycle that stayed would not pass.
     */
    private static final long BOUND_FROM_CYCLE_10_KIB = 8 * 1024;
    /** What JDK 21 and newer print for every dynamically loaded agent unless -XX:+EnableDynamicAgentLoading. */
    private static final Set<String> DYNAMIC_AGENT_WARNING = Set.of(
            "WARNING: If a serviceability tool is in use, please run with -XX:+EnableDynamicAgentLoading to hide"
                    + " this warning",
            "WARNING: If a serviceability tool is not in use, please run with -Djdk.instrument.traceUsage for more"
                    + " information",
            "WARNING: Dynamic loading of agents will be disallowed by default in a future release");

    /** Cycles while threads start and end all the while, each of them counted from its start. */
    private static final int CHURN_CYCLES = 10;

    private static final String CHURN_OPTIONS = "threads=churn-.*;events=page-faults;interval=20ms;out=";

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    /**
     * Attach and detach while threads start and end all the while, each enrolled as it starts (in C, with perfpin's
     * library), some of them still starting as a detach stops enrolling them: after each detach, within a deadline,
     * no perf_event descriptor is left, those a thread whose start was still in flight opened included; and the
     * threads were counted meanwhile, to their final records.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void attachDetachCyclesDuringThreadChurnLeaveNoCounterOpen(String java, @TempDir Path dir) throws Exception {
        // A recording of its own per cycle: an attach replaces the file it names, and one cycle's few milliseconds
        // under load may see no churned thread end.
        List<Path> outs = new ArrayList<>();
        try (AppJvm app = AppJvm.start(java, null, dir)) {
            app.await("ready");
            app.send("churning churn");
            app.await("churning");
            for (int cycle = 1; cycle <= CHURN_CYCLES; cycle++) {
                Path out = dir.resolve("churn-" + cycle + ".jsonl");
                outs.add(out);
                AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, CHURN_OPTIONS + out, TIMEOUT);
                AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
                assertEquals(
                        0, awaitNoCounters(app.pid()), "cycle " + cycle + ": no counter left open after the detach");
            }
            assertEquals(0, app.finish());
        }
        int counted = 0;
        for (Path out : outs) {
            counted += Observed.records(out, "thread", "churn-\\d+").size();
        }
        assertTrue(counted > 0, "churned threads counted while attached");
    }

    @ParameterizedTest
    @MethodSource("javas")
    void fiftyAttachDetachCyclesLeaveTheJvmAsTheyFoundIt(String java, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("cycles.jsonl");
        try (AppJvm app = AppJvm.start(
                java,
                null,
                dir,
                "-Xms64m",
                "-Xmx64m",
                "-XX:+AlwaysPreTouch",
                "-XX:+UseSerialGC",
                "-XX:-UseDynamicNumberOfCompilerThreads")) {
            app.await("ready");
            app.send("start worker-1 0");
            app.send("start worker-2 0");
            int pinned = app.touched("worker-1");
            app.touched("worker-2");
            String processCpus = Observed.cpusAllowed(app.pid(), pinned);
            trimNativeHeap(java, app.pid()); // the JVM's attach listener starts here, for good
            List<String> threadsBefore = Observed.threadNames(app.pid());
            List<String> descriptorsBefore = settledDescriptors(app.pid());

            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, OPTIONS + out, TIMEOUT);
            assertEquals("1", Observed.awaitCpusAllowed(app.pid(), pinned, "1"), "the agent runs");
            assertTrue(PerfEventDescriptors.of(app.pid()) > 0, "counters open while attached");
            AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
            assertEquals(threadsBefore, awaitThreads(app.pid(), threadsBefore), "perfpin's threads ended");
            long afterFirst = settledResidentKib(java, app.pid());
            List<String> descriptorsAfterFirst = settledDescriptors(app.pid());
            long afterTenth = 0;
            for (int cycle = 2; cycle <= CYCLES; cycle++) {
                AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, OPTIONS + out, TIMEOUT);
                AgentLoader.load(app.pid(), AppJvm.AGENT_JAR, "detach", TIMEOUT);
                if (cycle == 10) {
                    afterTenth = settledResidentKib(java, app.pid());
                }
            }

            assertEquals(threadsBefore, awaitThreads(app.pid(), threadsBefore), "perfpin's threads all ended");
            assertEquals(processCpus, Observed.cpusAllowed(app.pid(), pinned), "the pin undone");
            assertEquals(0, PerfEventDescriptors.of(app.pid()), "no counter left open");
            List<String> descriptors = awaitDescriptors(app.pid(), descriptorsAfterFirst);
            assertEquals(descriptorsAfterFirst, descriptors, "no descriptor left by cycles 2 to " + CYCLES);
            List<String> added = new ArrayList<>(descriptorsAfterFirst);
            descriptorsBefore.forEach(added::remove);
            String jar = AppJvm.AGENT_JAR.toRealPath().toString();
            assertTrue(
                    added.stream().allMatch(jar::equals),
                    "only the agent jar stays open, which the JVM put on its"
                            + " class path and the agent's class loader reads, once per JVM: " + added);
            long afterLast = settledResidentKib(java, app.pid());
            System.out.printf(
                    "%s: resident after cycle 1 %d KiB, cycle 10 %d KiB, cycle %d %d KiB%n",
                    java, afterFirst, afterTenth, CYCLES, afterLast);
            assertTrue(
                    afterLast - afterFirst <= BOUND_AFTER_FIRST_CYCLE_KIB,
                    "resident memory grew " + (afterLast - afterFirst) + " KiB from cycle 1 to " + CYCLES);
            assertTrue(
                    afterLast - afterTenth <= BOUND_FROM_CYCLE_10_KIB,
                    "resident memory grew " + (afterLast - afterTenth) + " KiB from cycle 10 to " + CYCLES);

            assertEquals(0, app.finish());
            assertTrue(
                    app.lines().stream()
                            .allMatch(l -> l.equals("ready") || l.equals("done") || l.startsWith("touched worker-")),
                    "only the application on stdout: " + app.lines());
            List<String> said = app.stderr();
            assertTrue(said.stream().noneMatch(l -> l.endsWith(AppJvm.CDS_WARNING)), "no class-data sharing warning");
            List<String> other = said.stream()
                    .filter(l -> !l.startsWith("WARNING: A Java agent has been loaded" + " dynamically (")
                            && !DYNAMIC_AGENT_WARNING.contains(l))
                    .collect(Collectors.toList());
            assertEquals(List.of(), other, "nothing on stderr but the JVM's warning about dynamic agents");
        }
    }

    /** The perf_event descriptors the process holds once none is left, or after 30 s: what it holds then. */
    private static long awaitNoCounters(long pid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long open = PerfEventDescriptors.of(pid);
        while (open > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            open = PerfEventDescriptors.of(pid);
        }
        return open;
    }

    /** The threads once the ones perfpin started have ended, which they do on their own after a detach. */
    private static List<String> awaitThreads(long pid, List<String> expected) throws Exception {
        return awaitSeen(() -> Observed.threadNames(pid), expected);
    }

    /**
     * The JVM's attach listener closes its end of a connection a moment after the client has read the reply: a
     * socket of the JVM's, not of the agent's, can still be open when the last detach returns. A descriptor the
     * agent left would stay open past the deadline.
     */
    private static List<String> awaitDescriptors(long pid, List<String> expected) throws Exception {
        return awaitSeen(() -> Observed.descriptors(pid), expected);
    }

    /** Descriptors as two looks 200 ms apart agree on them: without a connection the listener is closing. */
    private static List<String> settledDescriptors(long pid) throws Exception {
        List<String> last = Observed.descriptors(pid);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Thread.sleep(200);
            List<String> now = Observed.descriptors(pid);
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private interface Look {
        List<String> now() throws Exception;
    }

    private static List<String> awaitSeen(Look look, List<String> expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> seen = look.now();
        while (!seen.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            seen = look.now();
        }
        return seen;
    }

    /**
     * The least resident memory seen over six seconds, each reading after glibc gave back what it kept: memory a
     * finishing compilation still holds, and the JIT's pooled chunks, go within five.
     */
    private static long settledResidentKib(String java, long pid) throws Exception {
        long least = Long.MAX_VALUE;
        for (int reading = 0; reading < 4; reading++) {
            if (reading > 0) {
                Thread.sleep(2000);
            }
            trimNativeHeap(java, pid);
            least = Math.min(least, Observed.residentKib(pid));
        }
        return least;
    }

    private static void trimNativeHeap(String java, long pid) throws IOException, InterruptedException {
        Path jcmd = Paths.get(java).resolveSibling("jcmd");
        Path said = Files.createTempFile("perfpin-jcmd", ".out");
        Process process = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "System.trim_native_heap")
                .redirectErrorStream(true)
                .redirectOutput(said.toFile())
                .start();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError(jcmd + " did not end");
            }
            String text = Files.readString(said);
            Assumptions.assumeTrue(
                    text.contains("Trim native heap"),
                    "this JDK cannot trim its native heap" + " (System.trim_native_heap, JDK 17.0.9 and newer): "
                            + text);
        } finally {
            process.destroyForcibly();
            Files.delete(said);
        }
    }
}
