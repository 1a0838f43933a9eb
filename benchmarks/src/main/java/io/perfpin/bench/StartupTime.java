package io.perfpin.bench;

import io.perfpin.apps.Sleeper;
import io.perfpin.options.AgentOptionText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * Benchmark 3: how much later a trivial program ends when the agent starts with it: {@link Sleeper} with no
 * naps, from process start to exit, without an agent, with {@code -javaagent} and with async-profiler
 * ({@code event=cpu}), alternating; and the CPU time each used. Beside them, an agent that does nothing
 * ({@link EmptyAgent}): what {@code -javaagent} itself costs, which no agent written in Java goes below. One more run
 * of the first two with {@code -verbose:class} counts the classes loaded, per package, to show what the agent
 * brings in.
 */
final class StartupTime {
    private static final double TARGET_MILLIS = 60;
    /** What {@code -verbose:class} prints before the name of each class loaded. */
    private static final String CLASS_LOAD = "[class,load] ";

    private StartupTime() {}

    /** Start-up is short and noisy, so it gets twice the runs, plus one to make the median a run's own. */
    static int runs(Workspace workspace) {
        return 2 * workspace.runs() + 1;
    }

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        JavaCommand plain = workspace.app(Sleeper.class, "0");
        JavaCommand agent = plain.withJvmOption(workspace.agentOption(null));
        JavaCommand empty = plain.withJvmOption("-javaagent:" + EmptyAgent.jar(workspace));
        AsyncProfiler peer = workspace.asyncProfiler();
        List<IntFunction<JavaCommand>> configurations = new ArrayList<>(List.of(i -> plain, i -> agent, i -> empty));
        if (peer.missing() == null) {
            configurations.add(
                    i -> plain.withJvmOption(peer.agentOption(workspace.scratch("startup-" + i + ".collapsed"))));
        }
        List<List<ChildRun>> runs = Alternation.run(configurations, runs(workspace));
        Summary without =
                Summary.of(runs.get(0).stream().map(ChildRun::wallMillis).toList());
        Summary with = Summary.of(runs.get(1).stream().map(ChildRun::wallMillis).toList());
        Summary profiler = peer.missing() == null
                ? Summary.of(runs.get(3).stream().map(ChildRun::wallMillis).toList())
                : null;
        Summary floor =
                Summary.of(runs.get(2).stream().map(ChildRun::wallMillis).toList());
        Summary floorAdds = Summary.difference(floor, without);
        boolean cpuKnown = workspace.cpuUnknown() == null;
        Summary slower = Summary.difference(with, without);
        Map<String, Long> classesWithout = classesLoaded(plain);
        Map<String, Long> classesWith = classesLoaded(agent);
        long totalWithout = total(classesWithout);
        long totalWith = total(classesWith);
        String cause = "an agent that does nothing adds " + floorAdds.format(1) + " ms (the JDK's part of -javaagent);"
                + " with perfpin's the JVM loads " + totalWith + " classes before it exits, against " + totalWithout
                + " without it; most added: " + mostAdded(classesWith, classesWithout);
        MarkdownTable table = new MarkdownTable(
                        "",
                        "without agent",
                        "empty -javaagent (the JDK's floor)",
                        "empty − without",
                        "perfpin agent",
                        "perfpin − without",
                        profiler != null ? peer.name() + ", " + AsyncProfiler.optionsText() : "async-profiler",
                        "async-profiler − without")
                .row(
                        "start to exit, ms: median (min–max)",
                        without.format(1),
                        floor.format(1),
                        floorAdds.format(1),
                        with.format(1),
                        slower.format(1),
                        profiler != null ? profiler.format(1) : "not measured: " + peer.missing(),
                        profiler != null ? Summary.difference(profiler, without).format(1) : "");
        if (cpuKnown) {
            Summary cpuWithout =
                    Summary.of(runs.get(0).stream().map(ChildRun::cpuMillis).toList());
            Summary cpuWith =
                    Summary.of(runs.get(1).stream().map(ChildRun::cpuMillis).toList());
            Summary cpuProfiler = profiler != null
                    ? Summary.of(runs.get(3).stream().map(ChildRun::cpuMillis).toList())
                    : null;
            Summary cpuFloor =
                    Summary.of(runs.get(2).stream().map(ChildRun::cpuMillis).toList());
            table.row(
                    "CPU time, ms (every thread of the JVM)",
                    cpuWithout.format(1),
                    cpuFloor.format(1),
                    Summary.difference(cpuFloor, cpuWithout).format(1),
                    cpuWith.format(1),
                    Summary.difference(cpuWith, cpuWithout).format(1),
                    cpuProfiler != null ? cpuProfiler.format(1) : "",
                    cpuProfiler != null
                            ? Summary.difference(cpuProfiler, cpuWithout).format(1)
                            : "");
        }
        table.row(
                "classes loaded (-verbose:class, one run)",
                Long.toString(totalWithout),
                "",
                "",
                Long.toString(totalWith),
                Long.toString(totalWith - totalWithout),
                "",
                "");
        Cost cost = Cost.measured(without, with, profiler);
        String what = "JVM start-up to exit, trivial main: what the agent adds";
        List<Headline> headlines = new ArrayList<>();
        headlines.add(Headline.of(
                what,
                cost,
                peer.name(),
                s -> s.format(1) + " ms",
                "",
                "≤ +" + (int) TARGET_MILLIS + " ms",
                Verdict.atMost(cost.perfpinAdds(), TARGET_MILLIS, v -> Summary.number(v, 1) + " ms", cause)));
        if (profiler == null) {
            headlines.add(Headline.alone(
                    what + ", beside async-profiler's", "", "", "", "", Verdict.notMeasured(peer.missing())));
        }
        List<String> notes = new ArrayList<>();
        notes.add("`java -cp test-apps io.perfpin.apps.Sleeper 0` (prints one line and exits), " + runs(workspace)
                + " runs of each, alternating, after one untimed round; wall time from process start to exit as this"
                + " JVM sees it. The empty agent's premain returns at once (a jar of one class). The agent runs with its"
                + " defaults (events " + AgentOptionText.DEFAULT_EVENTS
                + ", a stats file); async-profiler"
                + " starts profiling CPU at once and writes its collapsed stacks at exit.");
        if (!cpuKnown) {
            notes.add("CPU not measured: " + workspace.cpuUnknown());
        }
        return new Section("3. JVM start-up", headlines, List.of(table), notes);
    }

    /** Classes loaded by one run, counted per package prefix of two names ({@code net.bytebuddy}). */
    private static Map<String, Long> classesLoaded(JavaCommand command) throws IOException, InterruptedException {
        return command.withJvmOption("-verbose:class").run().stdout().stream()
                .filter(line -> line.contains(CLASS_LOAD))
                .map(line -> line.substring(line.indexOf(CLASS_LOAD) + CLASS_LOAD.length())
                        .split(" ")[0])
                .collect(Collectors.groupingBy(StartupTime::packagePrefix, TreeMap::new, Collectors.counting()));
    }

    private static String packagePrefix(String className) {
        String[] names = className.split("\\.");
        return names.length <= 2 ? names[0] : names[0] + "." + names[1];
    }

    private static long total(Map<String, Long> classes) {
        return classes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The three package prefixes with the most classes added, with how many. */
    private static String mostAdded(Map<String, Long> with, Map<String, Long> without) {
        return with.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - without.getOrDefault(e.getKey(), 0L)))
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(3)
                .map(e -> e.getKey() + " +" + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
