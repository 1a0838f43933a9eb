package io.perfpin.bench;

import io.perfpin.apps.MainReached;
import io.perfpin.options.AgentOptionText;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Benchmark 3: how much later a trivial program reaches {@code main()} when the agent starts with it, which is what an
 * application waits for, the agent's start beside {@code main()} not included: {@link MainReached} without an agent,
 * with {@code -javaagent}, with the same agent by {@code -agentpath:libperfpin-agent.so} and with async-profiler
 * ({@code event=cpu}), alternating; how much later it exits, which for a main() this short waits for the agent's start
 * and final records; and the CPU time each used. Beside them, an agent that does nothing
 * ({@link EmptyAgent}): what {@code -javaagent} itself costs, which no agent written in Java goes below. One more run
 * of the first two with {@code -verbose:class} counts the classes loaded, per package, to show what the agent
 * brings in.
 */
final class StartupTime {
    private static final double TARGET_MILLIS = 60;
    /**
     * Name rules that leave {@code main} out, as an application's rules often do: {@code main()} then runs while the
     * agent starts beside it, where with the default rules {@code main} waits for the agent, to be counted whole.
     */
    private static final String NAME_RULE = "threads=worker-.*";
    /**
     * How long no counter is open before a cold run: the kernel switches its scheduler's perf hooks off a second
     * after the last per-thread counter closes ({@code perf_sched_delayed}, {@code HZ} jiffies), and the first counter
     * opened after that waits for them to be switched on again.
     */
    private static final long COLD_MILLIS = 1_500;
    /** What {@code -verbose:class} prints before the name of each class loaded. */
    private static final String CLASS_LOAD = "[class,load] ";

    private StartupTime() {}

    /** Start-up is short and noisy, so it gets twice the runs, plus one to make the median a run's own. */
    static int runs(Workspace workspace) {
        return 2 * workspace.runs() + 1;
    }

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        JavaCommand plain = workspace.app(MainReached.class);
        JavaCommand agent = plain.withJvmOption(workspace.agentOption(null));
        JavaCommand empty = plain.withJvmOption("-javaagent:" + EmptyAgent.jar(workspace));
        JavaCommand named = plain.withJvmOption(workspace.agentOption(NAME_RULE));
        JavaCommand byPath = plain.withJvmOption("-agentpath:" + workspace.agentLibrary());
        AsyncProfiler peer = workspace.asyncProfiler();
        List<IntFunction<JavaCommand>> configurations =
                new ArrayList<>(List.of(i -> plain, i -> agent, i -> empty, i -> named, i -> cold(agent)));
        String byPathMissing = Files.isRegularFile(workspace.agentLibrary())
                ? null
                : "no " + workspace.agentLibrary() + " (the native module was built without a C compiler)";
        int byPathAt = -1;
        if (byPathMissing == null) {
            byPathAt = configurations.size();
            configurations.add(i -> byPath);
        }
        int peerAt = -1;
        if (peer.missing() == null) {
            peerAt = configurations.size();
            configurations.add(
                    i -> plain.withJvmOption(peer.agentOption(workspace.scratch("startup-" + i + ".collapsed"))));
            configurations.add(i ->
                    cold(plain.withJvmOption(peer.agentOption(workspace.scratch("startup-cold-" + i + ".collapsed")))));
        }
        List<List<ChildRun>> runs = Alternation.run(configurations, runs(workspace));
        boolean profiled = peer.missing() == null;
        // The start-up is what the application waits for, main() reached; the exit, which waits for the agent's start
        // where main() is this short, is shown beside it.
        Summary without = summary(runs.get(0), ChildRun::mainMillis);
        Summary with = summary(runs.get(1), ChildRun::mainMillis);
        Summary floor = summary(runs.get(2), ChildRun::mainMillis);
        Summary profiler = profiled ? summary(runs.get(peerAt), ChildRun::mainMillis) : null;
        Summary cold = summary(runs.get(4), ChildRun::mainMillis);
        Summary profilerCold = profiled ? summary(runs.get(peerAt + 1), ChildRun::mainMillis) : null;
        Summary byPathMain = byPathAt < 0 ? null : summary(runs.get(byPathAt), ChildRun::mainMillis);
        Summary withoutExit = summary(runs.get(0), ChildRun::wallMillis);
        Summary withExit = summary(runs.get(1), ChildRun::wallMillis);
        Summary profilerExit = profiled ? summary(runs.get(peerAt), ChildRun::wallMillis) : null;
        // the columns after the first, in order: each configuration's index in runs, or -1 with why it did not run
        int[] columns = {2, 1, byPathAt, 3, 4, peerAt, profiled ? peerAt + 1 : -1};
        String[] missing = {null, null, byPathMissing, null, null, peer.missing(), peer.missing()};
        Summary floorAdds = Summary.difference(floor, without);
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
                "perfpin by -agentpath:libperfpin-agent.so",
                "that − without",
                "perfpin, " + NAME_RULE,
                "that − without",
                "perfpin, the kernel's perf hooks off",
                "that − without",
                profiled ? peer.name() + ", " + AsyncProfiler.optionsText() : "async-profiler",
                "async-profiler − without",
                "async-profiler, the kernel's perf hooks off",
                "that − without");
        row(
                table,
                "main() reached, ms after the start: median (min–max)",
                runs,
                ChildRun::mainMillis,
                columns,
                missing);
        row(table, "start to exit, ms: median (min–max)", runs, ChildRun::wallMillis, columns, null);
        if (workspace.cpuUnknown() == null) {
            row(table, "CPU time, ms (every thread of the JVM)", runs, ChildRun::cpuMillis, columns, null);
        }
        table.row(
                "classes loaded (-verbose:class, one run)",
                Long.toString(totalWithout),
                "",
                "",
                Long.toString(totalWith),
                Long.toString(totalWith - totalWithout),
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "");
        String what = "JVM start-up, trivial main: main() reached, what the agent adds";
        List<Headline> headlines = new ArrayList<>();
        headlines.add(headline(what, Cost.measured(without, with, profiler), peer.name(), cause));
        headlines.add(Headline.of(
                "the same, to the JVM's exit, which waits for the agent's start and its final records",
                Cost.measured(withoutExit, withExit, profilerExit),
                peer.name(),
                v -> v.format(1) + " ms",
                "",
                "",
                Verdict.noTarget()));
        headlines.add(headline(
                what + ", the kernel's perf hooks off (no counter open on the host for a second)",
                Cost.measured(without, cold, profilerCold),
                peer.name(),
                "the first counter opened waits for the kernel to switch its scheduler's perf hooks on"));
        String nativeWhat = what + ", by -agentpath:libperfpin-agent.so (no -javaagent: the JDK's archived module graph"
                + " stays)";
        headlines.add(
                byPathMain != null
                        ? headline(
                                nativeWhat,
                                Cost.measured(without, byPathMain, profiler),
                                peer.name(),
                                "the same agent, started at VMInit by its native library")
                        : Headline.alone(nativeWhat, "", "", "", "", Verdict.notMeasured(byPathMissing)));
        if (profiler == null) {
            headlines.add(Headline.alone(
                    what + ", beside async-profiler's", "", "", "", "", Verdict.notMeasured(peer.missing())));
        }
        List<String> notes = new ArrayList<>();
        notes.add("`java -cp test-apps io.perfpin.apps.MainReached` (prints when its main() began, one line, and"
                + " exits), " + runs(workspace) + " runs of each, alternating, after one untimed round; wall time from"
                + " process start to exit as this JVM sees it, and to main(), from the child's System.nanoTime() there"
                + " (CLOCK_MONOTONIC, as this JVM's). premain leaves most of the agent's start to a thread of its"
                + " own, beside main(), and the JVM's exit waits for it: with its default rules perfpin counts main,"
                + " whose counters premain opens before it returns; with rules that leave main out (" + NAME_RULE
                + ") it opens none. The empty agent's premain returns at once (a jar of one"
                + " class). -agentpath:libperfpin-agent.so starts the same agent jar, with the same defaults, from"
                + " the JVM's VMInit by the JDK's own entry for a Launcher-Agent-Class, so the JVM is started without"
                + " -javaagent's module option and keeps the module graph that class-data sharing maps ready-made"
                + " (-Xlog:cds: full module graph enabled). The cold column is the default agent after " + COLD_MILLIS
                + " ms in which no counter was"
                + " open: the kernel has switched its scheduler's perf hooks off, and the first counter opened waits"
                + " for them to be switched on (an RCU grace period), as on a host where nothing counts; the other"
                + " columns follow a run that opened counters by less than a second, and find them on, as a second"
                + " JVM started within a second of another does. async-profiler's event=cpu opens a per-thread"
                + " counter too, and meets the same wait cold. The agent runs with its defaults (events "
                + AgentOptionText.DEFAULT_EVENTS
                + ", a stats file); async-profiler"
                + " starts profiling CPU at once and writes its collapsed stacks at exit.");
        if (workspace.cpuUnknown() != null) {
            notes.add("CPU not measured: " + workspace.cpuUnknown());
        }
        return new Section("3. JVM start-up", headlines, List.of(table), notes);
    }

    /** A start-up row against the target, in ms; {@code cause} says why where it is missed. */
    private static Headline headline(String what, Cost cost, String peerName, String cause) {
        return Headline.of(
                what,
                cost,
                peerName,
                s -> s.format(1) + " ms",
                "",
                "≤ +" + (int) TARGET_MILLIS + " ms",
                Verdict.atMost(cost.perfpinAdds(), TARGET_MILLIS, v -> Summary.number(v, 1) + " ms", cause));
    }

    /**
     * {@code command}, after {@value #COLD_MILLIS} ms in which this benchmark opens no counter: the start as on a host
     * where no per-thread counter was open in the last second, the first one perfpin opens waiting for the kernel.
     * The other configurations run within a second of one that opened counters (perfpin's or async-profiler's), and
     * find the hooks on.
     */
    private static JavaCommand cold(JavaCommand command) {
        try {
            Thread.sleep(COLD_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted before a cold run", e);
        }
        return command;
    }

    private static Summary summary(List<ChildRun> runs, ToDoubleFunction<ChildRun> figure) {
        return Summary.of(runs.stream().mapToDouble(figure).toArray());
    }

    /**
     * A figure of every configuration, and what each adds over no agent, in the order of {@code columns}: each an
     * index in {@code runs}, or -1 where that configuration did not run.
     *
     * @param missing why each configuration did not run, said in its cell; null to leave those cells empty
     */
    private static void row(
            MarkdownTable table,
            String what,
            List<List<ChildRun>> runs,
            ToDoubleFunction<ChildRun> figure,
            int[] columns,
            String[] missing) {
        Summary without = summary(runs.get(0), figure);
        List<String> cells = new ArrayList<>(List.of(what, without.format(1)));
        for (int i = 0; i < columns.length; i++) {
            if (columns[i] >= 0) {
                Summary with = summary(runs.get(columns[i]), figure);
                cells.add(with.format(1));
                cells.add(Summary.difference(with, without).format(1));
            } else {
                cells.add(missing == null || missing[i] == null ? "" : "not measured: " + missing[i]);
                cells.add("");
            }
        }
        table.row(cells.toArray(new String[0]));
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
