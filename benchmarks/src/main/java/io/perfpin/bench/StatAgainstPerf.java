package io.perfpin.bench;

import io.perfpin.apps.Programs;
import io.perfpin.apps.Service;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Benchmark 8: {@code perfpin stat --pid} against {@code perf stat --per-thread -t TID,...} (Debian's
 * {@code linux-perf}, which {@code ./bench} installs when it is missing) on the same threads of one running JVM, for
 * the same time, in turn: how long from launching the tool to its first count, and the CPU time the tool used and
 * the counted JVM used meanwhile. perf is a small C program that is told the TIDs; perfpin stat is a JVM that finds
 * the threads itself and counts per Java thread.
 *
 * <p>Then what one short look costs, {@code perfpin stat PID} for {@value #WINDOW_MILLIS} ms: its wall time beyond
 * that window and its CPU time, beside {@code jcmd PID Thread.print}, the JDK's own way to look at a JVM's threads
 * from outside (itself a JVM), and {@code perf stat -t} for the same window, the floor of counting from outside.
 */
final class StatAgainstPerf {
    private static final String TITLE = "8. perfpin stat against perf stat";
    private static final int WORKERS = 4;
    private static final int PARKED = 96;
    private static final String EVENTS = "task-clock,context-switches,cpu-migrations,page-faults";
    private static final int INTERVAL_MILLIS = 100;
    private static final int INTERVALS = 20;
    private static final long TIMEOUT_SECONDS = 60;
    /** The window of the one short look. */
    private static final int WINDOW_MILLIS = 100;

    private static final double TARGET_JCMD_RATIO = 1.0;
    private static final double TARGET_CPU_MILLIS = 300;

    private StatAgainstPerf() {}

    /** One run of a tool: when its first count came, and what it and the counted JVM used. */
    private record ToolRun(double firstCountMillis, double wallMillis, double cpuMillis, double targetCpuMillis) {}

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        String perf = perfCommand();
        String noPerf = perf == null
                ? "perf is not installed (./bench installs Debian's linux-perf with apt-get when it runs as root;"
                        + " otherwise: sudo apt-get install linux-perf)"
                : null;
        Path cli = workspace.repository().resolve("cli/target/perfpin.jar");
        if (!Files.exists(cli)) {
            return notMeasured(cli + " is missing: build first with ./mvnw -B -q -DskipTests package");
        }
        Path runtimed;
        try {
            runtimed = workspace.programs().get("runtimed");
        } catch (IOException e) {
            return notMeasured("the tools' CPU time needs runtimed.c: " + e.getMessage());
        }
        Path stderr = workspace.scratch("stat-target.err");
        Process target = new ProcessBuilder(workspace
                        .app(Service.class, Integer.toString(WORKERS), "600", Integer.toString(PARKED))
                        .command())
                .redirectError(stderr.toFile())
                .start();
        try {
            AttachLatency.awaitReady(target);
            long pid = target.pid();
            List<Integer> tids = countedTids(pid);
            if (perf != null) {
                String refused = perfRefusal(runtimed, workspace, perfIntervals(perf, tids), pid);
                if (refused != null) {
                    perf = null;
                    noPerf = "perf cannot count here: " + refused;
                }
            }
            List<String> perfpinCommand = perfpin(
                    workspace,
                    pid,
                    "--interval",
                    INTERVAL_MILLIS + "ms",
                    "--duration",
                    INTERVAL_MILLIS * INTERVALS + "ms");
            // Without perf, the one look beside jcmd is still measured: it is the figure with a target.
            List<ToolRun> perfRuns = new ArrayList<>();
            List<ToolRun> perfpinRuns = new ArrayList<>();
            for (int i = 0; perf != null && i < workspace.runs(); i++) {
                if (i % 2 == 0) {
                    perfRuns.add(timed(runtimed, workspace, perfIntervals(perf, tids), ",task-clock,", pid));
                    perfpinRuns.add(timed(runtimed, workspace, perfpinCommand, ",sample,", pid));
                } else {
                    perfpinRuns.add(timed(runtimed, workspace, perfpinCommand, ",sample,", pid));
                    perfRuns.add(timed(runtimed, workspace, perfIntervals(perf, tids), ",task-clock,", pid));
                }
            }
            List<List<ToolRun>> looks = looks(runtimed, workspace, perf, pid, tids);
            return section(
                    workspace, tids.size(), perfRuns, perfpinRuns, looks, perf != null ? version(perf) : null, noPerf);
        } finally {
            target.getOutputStream().close(); // Service exits when its standard input closes
            if (!target.waitFor(30, TimeUnit.SECONDS)) {
                target.destroyForcibly().waitFor();
            }
            Files.deleteIfExists(stderr);
        }
    }

    /** perf counting the TIDs every {@value #INTERVAL_MILLIS} ms, {@value #INTERVALS} times, as CSV. */
    private static List<String> perfIntervals(String perf, List<Integer> tids) {
        return perfStat(
                perf, tids, "-I", Integer.toString(INTERVAL_MILLIS), "--interval-count", Integer.toString(INTERVALS));
    }

    /** perf stat counting the TIDs for the events, as CSV, for as long as {@code timing} says. */
    private static List<String> perfStat(String perf, List<Integer> tids, String... timing) {
        List<String> command = new ArrayList<>(List.of(
                perf,
                "stat",
                "-e",
                EVENTS,
                "--per-thread",
                "-t",
                tids.stream().map(String::valueOf).collect(Collectors.joining(","))));
        command.addAll(List.of(timing));
        command.add("-x,");
        return command;
    }

    /**
     * The launcher users run ({@code ./perfpin}, which passes its own JVM options), counting the threads perf is
     * given, for these options of timing.
     */
    private static List<String> perfpin(Workspace workspace, long pid, String... timing) {
        List<String> command = new ArrayList<>(List.of(
                workspace.repository().resolve("perfpin").toString(),
                "stat",
                Long.toString(pid),
                "--threads",
                "worker-.*|parked-.*",
                "--events",
                EVENTS,
                "--format",
                "csv"));
        command.addAll(List.of(timing));
        return command;
    }

    /**
     * The one short look, {@code perfpin stat} for {@value #WINDOW_MILLIS} ms, {@code jcmd Thread.print} and
     * {@code perf stat} for the same window, alternating (ABC CBA ...): their runs, in that order; without perf
     * (null), the first two.
     */
    private static List<List<ToolRun>> looks(
            Path runtimed, Workspace workspace, String perf, long pid, List<Integer> tids)
            throws IOException, InterruptedException {
        List<List<String>> tools = new ArrayList<>(List.of(
                perfpin(workspace, pid, "--duration", WINDOW_MILLIS + "ms"),
                List.of(
                        Paths.get(System.getProperty("java.home"), "bin", "jcmd")
                                .toString(),
                        Long.toString(pid),
                        "Thread.print")));
        if (perf != null) {
            tools.add(perfStat(perf, tids, "--timeout", Integer.toString(WINDOW_MILLIS)));
        }
        List<List<ToolRun>> runs = new ArrayList<>();
        for (List<String> tool : tools) {
            timed(runtimed, workspace, tool, null, pid); // untimed: the page cache, as Alternation does
            runs.add(new ArrayList<>());
        }
        for (int i = 1; i <= workspace.runs(); i++) {
            for (int k = 0; k < tools.size(); k++) {
                int t = i % 2 == 1 ? k : tools.size() - 1 - k;
                runs.get(t).add(timed(runtimed, workspace, tools.get(t), null, pid));
            }
        }
        return runs;
    }

    private static Section section(
            Workspace workspace,
            int threads,
            List<ToolRun> perf,
            List<ToolRun> perfpin,
            List<List<ToolRun>> looks,
            String perfVersion,
            String noPerf) {
        List<MarkdownTable> tables = new ArrayList<>();
        if (perfVersion != null) {
            tables.add(intervals(perf, perfpin, perfVersion));
        }
        // The short look: a window is no cost, so what each tool takes beyond it is; jcmd has no window.
        Summary lookBeyond = beyondWindow(looks.get(0));
        Summary jcmdWall =
                Summary.of(looks.get(1).stream().map(ToolRun::wallMillis).toList());
        Summary lookCpu =
                Summary.of(looks.get(0).stream().map(ToolRun::cpuMillis).toList());
        Summary jcmdCpu =
                Summary.of(looks.get(1).stream().map(ToolRun::cpuMillis).toList());
        boolean withPerf = perfVersion != null;
        String perfBeyond = withPerf ? beyondWindow(looks.get(2)).format(1) : "not measured";
        String perfLookCpu = withPerf
                ? Summary.of(looks.get(2).stream().map(ToolRun::cpuMillis).toList())
                        .format(1)
                : "not measured";
        tables.add(
                0,
                new MarkdownTable(
                                "one look, ms: median (min–max)",
                                "`perfpin stat PID` for " + WINDOW_MILLIS + " ms",
                                "`jcmd PID Thread.print`",
                                (withPerf ? perfVersion : "perf") + " stat -t for " + WINDOW_MILLIS + " ms")
                        .row(
                                "wall time beyond the window (jcmd: all of it)",
                                lookBeyond.format(1),
                                jcmdWall.format(1),
                                perfBeyond)
                        .row("CPU time of the tool", lookCpu.format(1), jcmdCpu.format(1), perfLookCpu)
                        .row(
                                "CPU time of the counted JVM meanwhile",
                                targetCpu(looks.get(0)).format(1),
                                targetCpu(looks.get(1)).format(1),
                                withPerf ? targetCpu(looks.get(2)).format(1) : "not measured"));
        String what = "`perfpin stat PID` for " + WINDOW_MILLIS + " ms, " + threads + " threads, beside `jcmd PID"
                + " Thread.print`: ";
        Cost wall = new Cost(null, lookBeyond, jcmdWall);
        Cost cpu = new Cost(null, lookCpu, jcmdCpu);
        String jcmd = "jcmd Thread.print";
        List<Headline> headlines = List.of(
                Headline.of(
                        what + "wall time beyond its window",
                        wall,
                        jcmd,
                        StatAgainstPerf::millis,
                        "perf stat -t: " + (withPerf ? perfBeyond + " ms" : "not measured"),
                        "≤ " + TARGET_JCMD_RATIO + "x jcmd's",
                        Verdict.atMost(wall.ratio(), TARGET_JCMD_RATIO, v -> Summary.number(v, 2) + "x", "")),
                Headline.of(
                        what + "CPU time",
                        cpu,
                        jcmd,
                        StatAgainstPerf::millis,
                        "perf stat -t: " + (withPerf ? perfLookCpu + " ms" : "not measured"),
                        "≤ " + (int) TARGET_CPU_MILLIS + " ms",
                        Verdict.atMost(lookCpu, TARGET_CPU_MILLIS, v -> Summary.number(v, 1) + " ms", "")));
        return new Section(TITLE, headlines, tables, notes(workspace, threads, noPerf));
    }

    private static List<String> notes(Workspace workspace, int threads, String noPerf) {
        List<String> notes = new ArrayList<>(List.of(
                "One look: `perfpin stat PID --duration " + WINDOW_MILLIS
                        + "ms` through the `./perfpin` launcher,"
                        + " `jcmd PID Thread.print` (the JDK's; prints every thread's stack) and `perf stat"
                        + " -t TIDs --timeout " + WINDOW_MILLIS + "`, " + workspace.runs()
                        + " runs of each, alternating"
                        + " (ABC CBA ...) after one untimed round. The window itself costs nothing: a tool's"
                        + " cost is its time from launch to exit beyond it, and its CPU time. jcmd has no"
                        + " window: all its time is cost.",
                "One `Service " + WORKERS + " 600 " + PARKED + "` JVM (" + WORKERS
                        + " workers spinning and napping, "
                        + PARKED + " parked threads); both tools count its " + threads
                        + " worker and parked threads"
                        + " for the events " + EVENTS + ", every " + INTERVAL_MILLIS + " ms, " + INTERVALS
                        + " intervals, printing CSV; " + workspace.runs()
                        + " runs of each, alternating. perf is given"
                        + " the TIDs (read from /proc/PID/task/*/comm), perfpin the regex"
                        + " `worker-.*|parked-.*`; both looks count the same threads for the same events.",
                "First count: the first line of counts on the tool's output, from the moment it was"
                        + " launched. CPU: user plus system time of the tool's process as wait4 reports it"
                        + " (runtimed.c); the counted JVM's from /proc/PID/stat before and after, which"
                        + " includes its own workers' spinning: the difference between the two columns is what"
                        + " the tool made the JVM do (perfpin stat takes"
                        + " one thread dump of it to name its threads)."));
        if (noPerf != null) {
            notes.add("perf's columns and the table of intervals are not measured: " + noPerf + ".");
        }
        return notes;
    }

    /** perf and perfpin counting the same threads every interval: first count, exit, CPU, the JVM's CPU. */
    private static MarkdownTable intervals(List<ToolRun> perf, List<ToolRun> perfpin, String perfVersion) {
        Summary perfFirst =
                Summary.of(perf.stream().map(ToolRun::firstCountMillis).toList());
        Summary perfpinFirst =
                Summary.of(perfpin.stream().map(ToolRun::firstCountMillis).toList());
        Summary perfCpu = Summary.of(perf.stream().map(ToolRun::cpuMillis).toList());
        Summary perfpinCpu = Summary.of(perfpin.stream().map(ToolRun::cpuMillis).toList());
        String perfpinLess = "perfpin − perf";
        String perfColumn = perfVersion + " stat --per-thread -t";
        return new MarkdownTable("ms: median (min–max)", perfColumn, "perfpin stat", perfpinLess)
                .row(
                        "launch to first count",
                        perfFirst.format(1),
                        perfpinFirst.format(1),
                        Summary.difference(perfpinFirst, perfFirst).format(1))
                .row(
                        "launch to exit",
                        Summary.of(perf.stream().map(ToolRun::wallMillis).toList())
                                .format(1),
                        Summary.of(perfpin.stream().map(ToolRun::wallMillis).toList())
                                .format(1),
                        "")
                .row(
                        "CPU time of the tool",
                        perfCpu.format(1),
                        perfpinCpu.format(1),
                        Summary.difference(perfpinCpu, perfCpu).format(1))
                .row(
                        "CPU time of the counted JVM meanwhile",
                        Summary.of(perf.stream().map(ToolRun::targetCpuMillis).toList())
                                .format(1),
                        Summary.of(perfpin.stream()
                                        .map(ToolRun::targetCpuMillis)
                                        .toList())
                                .format(1),
                        "");
    }

    private static Summary beyondWindow(List<ToolRun> runs) {
        return Summary.of(
                runs.stream().mapToDouble(r -> r.wallMillis() - WINDOW_MILLIS).toArray());
    }

    private static Summary targetCpu(List<ToolRun> runs) {
        return Summary.of(runs.stream().map(ToolRun::targetCpuMillis).toList());
    }

    private static String millis(Summary value) {
        return value.format(1) + " ms";
    }

    private static Section notMeasured(String why) {
        return new Section(
                TITLE,
                List.of(Headline.alone(
                        "`perfpin stat` beside `jcmd Thread.print` and `perf stat" + " -t`",
                        "",
                        "",
                        "",
                        "",
                        Verdict.notMeasured(why))),
                List.of(),
                List.of("Not measured: " + why + "."));
    }

    /** perf on the PATH, or null. */
    private static String perfCommand() {
        return Programs.onPath("perf").map(Path::toString).orElse(null);
    }

    private static String version(String perf) {
        try {
            List<String> lines = CPrograms.run(List.of(perf, "--version"), "perf --version");
            return lines.isEmpty() ? "perf" : lines.get(0).strip();
        } catch (IOException | InterruptedException e) {
            return "perf";
        }
    }

    /** Why perf cannot count the threads (its own words), or null when it can. */
    private static String perfRefusal(Path runtimed, Workspace workspace, List<String> command, long pid)
            throws InterruptedException {
        try {
            timed(runtimed, workspace, command, ",task-clock,", pid);
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    /**
     * Runs a tool under runtimed, timing the first line of its output that carries {@code countMarker}; with no
     * marker (null) the first count is not timed (-1) and the tool need only exit 0.
     */
    private static ToolRun timed(Path runtimed, Workspace workspace, List<String> tool, String countMarker, long pid)
            throws IOException, InterruptedException {
        Path cost = workspace.scratch("tool.cost");
        List<String> command = new ArrayList<>(List.of(runtimed.toString(), cost.toString()));
        command.addAll(tool);
        long targetBefore = cpuNanos(pid);
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        long first = -1;
        List<String> said = new ArrayList<>();
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (first < 0 && countMarker != null && line.contains(countMarker)) {
                    first = System.nanoTime() - start;
                }
                if (said.size() < 5) {
                    said.add(line);
                }
            }
        }
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new IOException(tool.get(0) + " did not end within " + TIMEOUT_SECONDS + " s");
        }
        long wall = System.nanoTime() - start;
        long targetCpu = cpuNanos(pid) - targetBefore;
        long cpu = JavaCommand.cpuNanos(cost);
        Files.deleteIfExists(cost);
        boolean uncounted = countMarker != null && first < 0;
        if (process.exitValue() != 0 || uncounted) {
            throw new IOException(String.join(" ", tool.subList(0, 2)) + " exited " + process.exitValue()
                    + (uncounted ? " without a count" : "") + ": " + String.join(" | ", said));
        }
        return new ToolRun(first / 1e6, wall / 1e6, cpu / 1e6, targetCpu / 1e6);
    }

    /** utime plus stime of a process, from /proc/PID/stat, in ns (USER_HZ is 100 on Linux). */
    private static long cpuNanos(long pid) throws IOException {
        String stat = Files.readString(Paths.get("/proc", Long.toString(pid), "stat"));
        // After the command's closing parenthesis comes field 3, the state: utime and stime, fields 14 and 15, follow
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
    }

    private static List<Integer> countedTids(long pid) throws IOException {
        List<Integer> tids = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Paths.get("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String comm = Files.readString(task.resolve("comm")).strip();
                if (comm.startsWith("worker-") || comm.startsWith("parked-")) {
                    tids.add(Integer.parseInt(task.getFileName().toString()));
                }
            }
        }
        return tids;
    }
}
