package io.perfpin.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.jvm.AgentJar;
import io.perfpin.report.JsonReader;
import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * -prof perfpin in real JMH 1.37, on its published samples and on a benchmark of known page faults, each run as
 * users run JMH: the secondary results per operation in JMH's text and in -rf json, the workers pinned for the
 * measurement as /proc shows them, and -jvmArgsAppend still reaching the fork beside the profiler's agent.
 */
class PerfpinProfilerIT {
    /** JMHSample_22's baseline group: a reader and a writer, two worker threads. */
    private static final String TWO_WORKERS = "JMHSample_22_FalseSharing.baseline";

    private static final String SHORT = "-wi 1 -w 200ms -i 2 -r 200ms";
    private static final int PAGES = 256;
    /** The simulated misses per 1000 instructions of every miss event. */
    private static final double MPKI = 6.0;

    @TempDir
    Path dir;

    @Test
    void lprofListsItAndHelpDescribesItsOptions() throws Exception {
        JmhRun list = JmhRun.of("-lprof");
        assertTrue(
                list.out.matches(
                        "(?s).*\n +perfpin: Counts of the benchmark's own worker threads .*\\(discovered\\).*"),
                list.out);
        JmhRun help = JmhRun.of("-prof", "perfpin:help");
        assertTrue(help.out.contains("Options accepted by perfpin:"), help.out);
        for (String option : List.of(
                "events=<list>",
                "threads=<regex|all>",
                "pin=<core|isolated|cpus>",
                "perThread=<bool>",
                "agent=<bool>")) {
            assertTrue(help.out.contains("\n  " + option + " "), option + " in:\n" + help.out);
        }
    }

    /**
     * Two workers, one fork: task-clock, context switches and page faults per operation in the text and in the JSON,
     * each thread's share adding up to them, and the events this machine cannot count said once and never reported.
     */
    @Test
    void aTwoWorkerSampleHasItsCountsPerOperationInTextAndJson() throws Exception {
        Path json = dir.resolve("result.json");
        JmhRun run = JmhRun.of(args(
                TWO_WORKERS,
                "-f 1 " + SHORT,
                "-prof",
                "perfpin:perThread=true",
                "-rf",
                "json",
                "-rff",
                json.toString()));
        assertEquals(0, run.code, run.out);
        for (String result : List.of(
                "·task-clock +thrpt +2 +[^ ].* ns/op",
                "·context-switches +thrpt +2 +[^ ].* #/op",
                "·page-faults +thrpt +2 +[^ ].* #/op")) {
            assertTrue(
                    Pattern.compile("\nJMHSample_22_FalseSharing\\.baseline:" + result + "\n")
                            .matcher(run.out)
                            .find(),
                    result + " in the summary table:\n" + run.out);
        }
        Map<?, ?> metrics = secondaryMetrics(json);
        for (String event : List.of("task-clock", "context-switches", "page-faults")) {
            Map<?, ?> total = (Map<?, ?>) metrics.get("·" + event);
            assertTrue(total != null, event + " in " + metrics.keySet());
            assertEquals(event.equals("task-clock") ? "ns/op" : "#/op", total.get("scoreUnit"));
            List<Double> iterations = rawData(total);
            assertEquals(2, iterations.size(), "one value per measurement iteration: " + total);
            List<Double> first = rawData((Map<?, ?>) metrics.get("·" + event + ":worker-1"));
            List<Double> second = rawData((Map<?, ?>) metrics.get("·" + event + ":worker-2"));
            for (int i = 0; i < 2; i++) {
                assertEquals(
                        iterations.get(i),
                        first.get(i) + second.get(i),
                        1e-9 * Math.max(1, iterations.get(i)),
                        event + ": each worker's share adds up to the total, iteration " + (i + 1));
            }
        }
        assertTrue(rawData((Map<?, ?>) metrics.get("·task-clock")).stream().allMatch(v -> v > 0), metrics.toString());
        Matcher notCounted =
                Pattern.compile("# perfpin: not counting ([^:]+): ").matcher(run.out);
        while (notCounted.find()) {
            for (String event : notCounted.group(1).split(", ")) {
                assertFalse(metrics.containsKey("·" + event), event + " is not counted here, and has no result");
                assertFalse(run.out.contains(":·" + event + " "), event + " has no line in the text");
            }
            assertEquals(1, run.out.split(Pattern.quote(notCounted.group()), -1).length - 1, "said once:\n" + run.out);
        }
    }

    /**
     * Each operation of PagesPerOperation takes 256 page faults, in a fork (given the page count through
     * -jvmArgsAppend) and with -f 0 in JMH's own JVM.
     */
    @Test
    void aBenchmarkOfKnownPageFaultsPerOperationReportsThemInAForkAndWithoutOne() throws Exception {
        Path forked = dir.resolve("forked.json");
        JmhRun run = JmhRun.of(args(
                "PagesPerOperation",
                "-f 1 -v EXTRA " + SHORT,
                "-jvmArgsAppend",
                "-Dperfpin.test.pages=" + PAGES,
                "-prof",
                "perfpin",
                "-rf",
                "json",
                "-rff",
                forked.toString()));
        assertEquals(0, run.code, run.out);
        assertFaultsPerOperation(forked, run);
        String fork = forkCommand(run);
        // by its library, as perfpin run starts it, where the build made one
        String agent = AgentJar.startOption("", List.of()).startsWith("-agentpath:")
                ? "-agentpath:[^,]*/libperfpin-agent\\.so"
                : "-javaagent:[^,]*/perfpin-agent\\.jar";
        assertTrue(
                fork.matches(".*, " + agent + "=threads=\\.\\*-jmh-worker-\\\\d\\+;events=sched;quiet, .*")
                        && fork.contains(", -Dperfpin.test.pages=" + PAGES + ", "),
                "the agent beside" + " -jvmArgsAppend: " + fork);
        // the agent started in the fork: no line of the library's saying it did not
        assertFalse(run.out.contains("runs without the agent"), run.out);

        Path inProcess = dir.resolve("in-process.json");
        JmhRun embedded = JmhRun.of(
                List.of("-Dperfpin.test.pages=" + PAGES),
                args(
                        "PagesPerOperation",
                        "-f 0 " + SHORT,
                        "-prof",
                        "perfpin",
                        "-rf",
                        "json",
                        "-rff",
                        inProcess.toString()));
        assertEquals(0, embedded.code, embedded.out);
        assertFaultsPerOperation(inProcess, embedded);
    }

    /**
     * Hardware events per operation, on the simulated PMU the fork gets through -jvmArgsAppend, twelve
     * general-purpose events on four counters (the simulated Skylake's walk event among them), so multiplexed and
     * scaled: ·cycles is 3 GHz of the workers' task-clock, ·ipc the figure asked for, ·instructions the product, and
     * the fork says on its output, which JMH shows, that its PMU is simulated. The three misses asked of the presets
     * are in different groups of the core's events, which the model's four counters take in turn: each miss's figure
     * is still its rate (the MPKI asked for) of the instructions of the whole task-clock, counted throughout as a
     * software event, where a raw count would be only its group's share of it. Each result of a hardware event, and
     * each ratio of one, names the simulated PMU in its unit, in the text and the JSON; task-clock, the kernel's, does
     * not. The fork counts every event, and nothing says otherwise: this JVM, which has no simulated PMU, says nothing
     * of what the fork counts.
     */
    @Test
    void hardwareEventsPerOperationOnASimulatedPmu() throws Exception {
        Path json = dir.resolve("simulated.json");
        JmhRun run = JmhRun.of(args(
                "PagesPerOperation",
                "-f 1 " + SHORT,
                "-jvmArgsAppend",
                "-Dperfpin.test.pages=" + PAGES
                        + " -Dperfpin.simulated-pmu=skylake -Dperfpin.simulated-pmu.ipc=2.5"
                        + " -Dperfpin.simulated-pmu.mpki=" + MPKI,
                "-prof",
                "perfpin:events=ipc,cache,tlb,branch,task-clock",
                "-rf",
                "json",
                "-rff",
                json.toString()));
        assertEquals(0, run.code, run.out);
        assertEquals(
                1,
                run.out.split("\n# perfpin: simulated PMU skylake ", -1).length - 1,
                "the fork says so once:\n" + run.out);
        assertFalse(run.out.contains("# perfpin: not counting"), run.out);
        Map<?, ?> metrics = secondaryMetrics(json);
        assertEquals("#/op (simulated skylake PMU)", ((Map<?, ?>) metrics.get("·cycles")).get("scoreUnit"));
        assertEquals("insns/clk (simulated skylake PMU)", ((Map<?, ?>) metrics.get("·ipc")).get("scoreUnit"));
        assertEquals("ns/op", ((Map<?, ?>) metrics.get("·task-clock")).get("scoreUnit"));
        assertTrue(
                Pattern.compile("PagesPerOperation\\.\\w+:·cycles +thrpt +2 +[^\\n]* "
                                + "#/op \\(simulated skylake PMU\\)\n")
                        .matcher(run.out)
                        .find(),
                "the unit in the text:\n" + run.out);
        List<Double> cycles = rawData((Map<?, ?>) metrics.get("·cycles"));
        List<Double> instructions = rawData((Map<?, ?>) metrics.get("·instructions"));
        List<Double> taskClock = rawData((Map<?, ?>) metrics.get("·task-clock"));
        List<Double> ipc = rawData((Map<?, ?>) metrics.get("·ipc"));
        List<String> generalPurpose = List.of(
                "cache-references",
                "cache-misses",
                "L1-dcache-loads",
                "L1-dcache-load-misses",
                "LLC-loads",
                "LLC-load-misses",
                "dTLB-loads",
                "dTLB-load-misses",
                "iTLB-load-misses",
                "DTLB_LOAD_MISSES.WALK_ACTIVE",
                "branches",
                "branch-misses");
        for (String event : generalPurpose) {
            assertTrue(metrics.containsKey("·" + event), event + " per operation: " + metrics.keySet());
        }
        assertTrue(metrics.containsKey("·walk-cycles-share"), "the walk event's share of cycles: " + metrics.keySet());
        for (int i = 0; i < cycles.size(); i++) {
            assertEquals(
                    3.0 * taskClock.get(i),
                    cycles.get(i),
                    3.0 * taskClock.get(i) * 0.05,
                    "cycles per operation, iteration " + (i + 1) + ": " + metrics.keySet());
            assertEquals(2.5 * cycles.get(i), instructions.get(i), 2.5 * cycles.get(i) * 0.01);
            assertEquals(2.5, ipc.get(i), 0.03);
            double whole = MPKI / 1000 * 2.5 * 3.0 * taskClock.get(i);
            for (String miss : List.of("·cache-misses", "·LLC-load-misses", "·branch-misses")) {
                assertEquals(
                        whole,
                        rawData((Map<?, ?>) metrics.get(miss)).get(i),
                        whole * 0.05,
                        miss + " per operation scaled to the whole iteration, iteration " + (i + 1));
            }
        }
    }

    /**
     * With -wi 0 the workers start in the first measurement iteration, too late for it to be counted, which the
     * profiler says from its hook while JMH's line {@code Iteration   1: } is open, forked or in JMH's own JVM
     * (-f 0): the note goes on a line of its own, the iteration's result on the next, and no blank line comes of it.
     */
    @Test
    void aNoteSaidWhileAnIterationsLineIsOpenIsOnALineOfItsOwn() throws Exception {
        for (String forks : List.of("-f 0", "-f 1")) {
            JmhRun run = JmhRun.of(args("JMHSample_01_HelloWorld", forks + " -wi 0 -i 2 -r 200ms", "-prof", "perfpin"));
            assertEquals(0, run.code, run.out);
            List<String> lines = run.out.lines().toList();
            int note = -1;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                assertFalse(
                        line.indexOf("# perfpin:") > 0 || line.indexOf("[perfpin]") > 0,
                        forks + ": text before" + " a note on its line " + i + ":\n" + run.out);
                if (line.startsWith("# perfpin: measurement iteration 1 is not counted")) {
                    note = i;
                }
            }
            assertTrue(note > 0, forks + ": the first iteration said not counted:\n" + run.out);
            assertEquals("Iteration   1:", lines.get(note - 1).strip(), forks + ":\n" + run.out);
            assertTrue(
                    lines.get(note + 1).matches("[0-9.,]+ ops/s"),
                    forks + ": its result on the next line:\n" + run.out);
        }
    }

    /**
     * JMH started with the agent, as perfpin run starts it: the fork gets that agent through JMH's copy of its JVM's
     * arguments, and no second one from the profiler; each JVM records to a file of its own.
     */
    @Test
    void aForkThatGetsItsJvmsAgentGetsNoSecondAndRecordsBesideIt() throws Exception {
        Path record = dir.resolve("run.jsonl");
        JmhRun run = JmhRun.of(
                List.of("-javaagent:" + AgentJar.forThisUser() + "=events=sched;out=" + record + ";quiet"),
                args(TWO_WORKERS, "-f 1 -v EXTRA " + SHORT, "-prof", "perfpin"));
        assertEquals(0, run.code, run.out);
        assertEquals(1, forkCommand(run).split("-javaagent:", -1).length - 1, forkCommand(run));
        assertFalse(forkCommand(run).contains("-agentpath:"), forkCommand(run));
        assertFalse(run.out.contains("[perfpin]"), "nothing refused, nothing said on stderr:\n" + run.out);
        assertTrue(run.out.contains(":·page-faults "), run.out);
        List<Path> recordings = RecordingFile.family(record);
        assertEquals(2, recordings.size(), "JMH's JVM's and the fork's: " + recordings);
        for (Path recording : recordings) {
            assertTrue(Recording.read(recording).warning().isEmpty(), recording.toString());
        }
    }

    private static String forkCommand(JmhRun run) {
        Matcher command =
                Pattern.compile("(?m)^Forking using command: \\[(.*)\\]$").matcher(run.out);
        assertTrue(command.find(), "-v EXTRA prints the fork's command:\n" + run.out);
        return command.group(1);
    }

    private void assertFaultsPerOperation(Path json, JmhRun run) throws Exception {
        for (double faults : rawData((Map<?, ?>) secondaryMetrics(json).get("·page-faults"))) {
            assertTrue(
                    Math.abs(faults - PAGES) <= PAGES * 0.03,
                    faults + " page faults per operation of " + PAGES + " pages:\n" + run.out);
        }
    }

    /**
     * pin=core: from the last warm-up iteration to the end of the measurement each worker runs on a core of its own,
     * as /proc/self/task/TID/status says, read by a profiler that JMH calls before perfpin as iterations start and
     * after it as they end; before and after, on every CPU it had.
     */
    @Test
    void pinCoreGivesEachWorkerItsOwnCoreForTheMeasurementAndItsCpusBackAfter() throws Exception {
        // A perfpin directory of its own, whose CPU reservations no other test's pins share (JMH copies it to the
        // fork).
        JmhRun run = JmhRun.of(
                List.of("-Dperfpin.dir=" + dir.resolve("perfpin")),
                args(
                        TWO_WORKERS,
                        "-f 1 -wi 2 -w 200ms -i 2 -r 200ms",
                        "-prof",
                        AffinityObserver.class.getName(),
                        "-prof",
                        "perfpin:pin=core"));
        assertEquals(0, run.code, run.out);
        String allowed = affinity(run, "WARMUP 2 start worker-1");
        assertEquals(allowed, affinity(run, "WARMUP 2 start worker-2"), "not pinned before");
        for (String moment : List.of("MEASUREMENT 1 start", "MEASUREMENT 1 end", "MEASUREMENT 2 start")) {
            String first = affinity(run, moment + " worker-1");
            String second = affinity(run, moment + " worker-2");
            assertTrue(
                    first.matches("\\d+") && second.matches("\\d+") && !first.equals(second),
                    moment + ": a CPU each, not the same: " + first + ", " + second + "\n" + run.out);
        }
        assertEquals(allowed, affinity(run, "MEASUREMENT 2 end worker-1"), "its CPUs back after the last iteration");
        assertEquals(allowed, affinity(run, "MEASUREMENT 2 end worker-2"));
        // The cores it chose are said once, in one note: each worker (its long name cut) with its CPU.
        Matcher placed = Pattern.compile("(?m)^# perfpin: pin=core placed \\S+ on CPU (\\d+), \\S+ on CPU (\\d+)$")
                .matcher(run.out);
        assertTrue(placed.find(), "the cores chosen, said:\n" + run.out);
        Set<String> measured =
                Set.of(affinity(run, "MEASUREMENT 1 start worker-1"), affinity(run, "MEASUREMENT 1 start worker-2"));
        assertEquals(measured, Set.of(placed.group(1), placed.group(2)), run.out);
        assertFalse(placed.find(), "said once:\n" + run.out);
    }

    /**
     * pin=CPUS pins every worker to that list for the measurement, and threads=all counts every thread of the fork,
     * as perfnorm does: the per-thread shares then hold more threads than JMH's two workers, and the JVM's threads
     * of one name have one each.
     */
    @Test
    void pinToACpuListAndThreadsAll() throws Exception {
        Path json = dir.resolve("all.json");
        JmhRun run = JmhRun.of(
                List.of("-Dperfpin.dir=" + dir.resolve("perfpin")),
                args(
                        TWO_WORKERS,
                        "-f 1 -wi 2 -w 200ms -i 2 -r 200ms",
                        "-prof",
                        AffinityObserver.class.getName(),
                        "-prof",
                        "perfpin:pin=1;threads=all;perThread=true",
                        "-jvmArgsAppend",
                        "-XX:CICompilerCount=4 -XX:-UseDynamicNumberOfCompilerThreads",
                        "-rf",
                        "json",
                        "-rff",
                        json.toString()));
        assertEquals(0, run.code, run.out);
        for (String worker : List.of("worker-1", "worker-2")) {
            String allowed = affinity(run, "WARMUP 2 start " + worker);
            for (String moment : List.of("MEASUREMENT 1 start ", "MEASUREMENT 1 end ", "MEASUREMENT 2 start ")) {
                assertEquals("1", affinity(run, moment + worker), moment + "pinned to the list:\n" + run.out);
            }
            assertEquals(allowed, affinity(run, "MEASUREMENT 2 end " + worker), "its CPUs back after");
        }
        Map<?, ?> metrics = secondaryMetrics(json);
        List<String> shares = metrics.keySet().stream()
                .map(Object::toString)
                .filter(k -> k.startsWith("·task-clock:"))
                .toList();
        assertTrue(shares.size() > 2, "every thread of the fork, not only the workers: " + shares + "\n" + run.out);
        // Three C2 compiler threads (-XX:CICompilerCount=4: one C1, three C2), all started with the JVM, by the
        // kernel's name cut to "C2 CompilerThre": each has a label of its own, so that their shares add up to the
        // total rather than JMH averaging those of one label.
        long compilers = shares.stream()
                .filter(k -> k.matches("·task-clock:C2 CompilerThre \\(tid \\d+\\)"))
                .count();
        assertEquals(3, compilers, "each C2 compiler thread told apart by its TID: " + shares);
    }

    private static String affinity(JmhRun run, String when) {
        // JMH prints a fork's output as it comes, so the first line of an iteration follows JMH's own on its line.
        Matcher line = Pattern.compile("(?m)affinity " + when + " (\\S+)$").matcher(run.out);
        assertTrue(line.find(), "affinity " + when + " in:\n" + run.out);
        return line.group(1);
    }

    private static String[] args(String benchmark, String iterations, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of(benchmark));
        args.addAll(List.of(iterations.split(" ")));
        args.addAll(List.of(more));
        return args.toArray(new String[0]);
    }

    private static Map<?, ?> secondaryMetrics(Path json) throws Exception {
        List<?> benchmarks = (List<?>) JsonReader.parse(Files.readString(json));
        assertEquals(1, benchmarks.size(), json.toString());
        return (Map<?, ?>) ((Map<?, ?>) benchmarks.get(0)).get("secondaryMetrics");
    }

    /** One value per measurement iteration, of the one fork. */
    private static List<Double> rawData(Map<?, ?> metric) {
        List<?> forks = (List<?>) metric.get("rawData");
        return ((List<?>) forks.get(0))
                .stream().map(v -> ((Number) v).doubleValue()).collect(java.util.stream.Collectors.toList());
    }
}
