package io.perfpin.bench;

import io.perfpin.apps.Sleeper;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Benchmark 3: how much later a trivial program ends when the agent starts with it: {@link Sleeper} with no
 * naps, from process start to exit, without and with {@code -javaagent}, alternating. One more run of each
 * with {@code -verbose:class} counts the classes loaded, per package, to show what the agent brings in.
 */
final class StartupTime {
    private static final double TARGET_MILLIS = 150;
    /** What {@code -verbose:class} prints before the name of each class loaded. */
    private static final String CLASS_LOAD = "[class,load] ";

    private StartupTime() {
    }

    /** Start-up is short and noisy, so it gets twice the runs, plus one to make the median a run's own. */
    static int runs(Workspace workspace) {
        return 2 * workspace.runs() + 1;
    }

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        JavaCommand plain = workspace.app(Sleeper.class, "0");
        JavaCommand agent = plain.withJvmOption(workspace.agentOption(null));
        Alternation.Runs runs = Alternation.run(i -> plain, i -> agent, runs(workspace));
        Summary without = Summary.of(runs.first().stream().map(ChildRun::wallMillis).toList());
        Summary with = Summary.of(runs.second().stream().map(ChildRun::wallMillis).toList());
        Summary slower = Summary.difference(with, without);
        Map<String, Long> classesWithout = classesLoaded(plain);
        Map<String, Long> classesWith = classesLoaded(agent);
        long totalWithout = total(classesWithout);
        long totalWith = total(classesWith);
        String cause = "with the agent the JVM loads " + totalWith + " classes before it exits, against " + totalWithout
                + " without it; most added: " + mostAdded(classesWith, classesWithout);
        MarkdownTable table = new MarkdownTable("", "without agent", "with agent", "difference")
                .row("start to exit, ms: median (min–max)", without.format(1), with.format(1), slower.format(1))
                .row("classes loaded (-verbose:class, one run)", Long.toString(totalWithout),
                        Long.toString(totalWith), Long.toString(totalWith - totalWithout));
        Headline headline = new Headline("JVM start-up to exit, trivial main: with agent − without",
                with.format(1) + " ms", without.format(1) + " ms", slower.format(1) + " ms",
                "≤ +" + (int) TARGET_MILLIS + " ms", Verdict.atMost(slower, TARGET_MILLIS,
                v -> Summary.number(v, 1) + " ms", cause));
        return new Section("3. JVM start-up", List.of(headline), List.of(table), List.of(
                "`java -cp test-apps io.perfpin.apps.Sleeper 0` (prints one line and exits), " + runs(workspace)
                        + " runs of each, alternating, after one untimed pair; wall time from process start to exit"
                        + " as this JVM sees it."));
    }

    /** Classes loaded by one run, counted per package prefix of two names ({@code net.bytebuddy}). */
    private static Map<String, Long> classesLoaded(JavaCommand command) throws IOException, InterruptedException {
        return command.withJvmOption("-verbose:class").run().stdout().stream()
                .filter(line -> line.contains(CLASS_LOAD))
                .map(line -> line.substring(line.indexOf(CLASS_LOAD) + CLASS_LOAD.length()).split(" ")[0])
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
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(3)
                .map(e -> e.getKey() + " +" + e.getValue()).collect(Collectors.joining(", "));
    }
}
