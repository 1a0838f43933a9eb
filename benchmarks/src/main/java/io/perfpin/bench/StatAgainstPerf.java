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
 * the threads itself (a listing of /proc and one thread dump for their names) and counts per Java thread.
 */
final class StatAgainstPerf {
    private static final String TITLE = "8. perfpin stat against perf stat";
    private static final int WORKERS = 4;
    private static final int PARKED = 96;
    private static final String EVENTS = "task-clock,context-switches,cpu-migrations,page-faults";
    private static final int INTERVAL_MILLIS = 100;
    private static final int INTERVALS = 20;
    private static final long TIMEOUT_SECONDS = 60;

    private StatAgainstPerf() {
    }

    /** One run of a tool: when its first count came, and what it and the counted JVM used. */
    private record ToolRun(double firstCountMillis, double wallMillis, double cpuMillis, double targetCpuMillis) {
    }

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        String perf = perfCommand();
        if (perf == null) {
            return notMeasured("perf is not installed (./bench installs Debian's linux-perf with apt-get when it runs as"
                    + " root; otherwise: sudo apt-get install linux-perf)");
        }
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
        Process target = new ProcessBuilder(workspace.app(Service.class, Integer.toString(WORKERS), "600",
                Integer.toString(PARKED)).command()).redirectError(stderr.toFile()).start();
        try {
            AttachLatency.awaitReady(target);
            long pid = target.pid();
            List<Integer> tids = countedTids(pid);
            List<String> perfCommand = List.of(perf, "stat", "-e", EVENTS, "--per-thread", "-t",
                    tids.stream().map(String::valueOf).collect(Collectors.joining(",")), "-I",
                    Integer.toString(INTERVAL_MILLIS), "--interval-count", Integer.toString(INTERVALS), "-x,");
            List<String> perfpinCommand = List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-jar", cli.toString(), "stat", "--pid", Long.toString(pid), "--threads", "worker-.*|parked-.*",
                    "--events", EVENTS, "--interval", INTERVAL_MILLIS + "ms", "--duration",
                    INTERVAL_MILLIS * INTERVALS + "ms", "--format", "csv");
            String perfFailed = perfRefusal(runtimed, workspace, perfCommand, pid);
            if (perfFailed != null) {
                return notMeasured("perf cannot count here: " + perfFailed);
            }
            List<ToolRun> perfRuns = new ArrayList<>();
            List<ToolRun> perfpinRuns = new ArrayList<>();
            for (int i = 0; i < workspace.runs(); i++) {
                if (i % 2 == 0) {
                    perfRuns.add(timed(runtimed, workspace, perfCommand, ",task-clock,", pid));
                    perfpinRuns.add(timed(runtimed, workspace, perfpinCommand, ",sample,", pid));
                } else {
                    perfpinRuns.add(timed(runtimed, workspace, perfpinCommand, ",sample,", pid));
                    perfRuns.add(timed(runtimed, workspace, perfCommand, ",task-clock,", pid));
                }
            }
            return section(workspace, tids.size(), perfRuns, perfpinRuns, version(perf));
        } finally {
            target.getOutputStream().close(); // Service exits when its standard input closes
            if (!target.waitFor(30, TimeUnit.SECONDS)) {
                target.destroyForcibly().waitFor();
            }
            Files.deleteIfExists(stderr);
        }
    }

    private static Section section(Workspace workspace, int threads, List<ToolRun> perf, List<ToolRun> perfpin,
                                   String perfVersion) {
        Summary perfFirst = Summary.of(perf.stream().map(ToolRun::firstCountMillis).toList());
        Summary perfpinFirst = Summary.of(perfpin.stream().map(ToolRun::firstCountMillis).toList());
        Summary perfCpu = Summary.of(perf.stream().map(ToolRun::cpuMillis).toList());
        Summary perfpinCpu = Summary.of(perfpin.stream().map(ToolRun::cpuMillis).toList());
        MarkdownTable table = new MarkdownTable("ms: median (min–max)", perfVersion + " stat --per-thread -t",
                "perfpin stat --pid", "perfpin / perf")
                .row("launch to first count", perfFirst.format(1), perfpinFirst.format(1),
                        Summary.ratio(perfpinFirst, perfFirst).format(2) + "x")
                .row("launch to exit", Summary.of(perf.stream().map(ToolRun::wallMillis).toList()).format(1),
                        Summary.of(perfpin.stream().map(ToolRun::wallMillis).toList()).format(1), "")
                .row("CPU time of the tool", perfCpu.format(1), perfpinCpu.format(1),
                        Summary.ratio(perfpinCpu, perfCpu).format(2) + "x")
                .row("CPU time of the counted JVM meanwhile",
                        Summary.of(perf.stream().map(ToolRun::targetCpuMillis).toList()).format(1),
                        Summary.of(perfpin.stream().map(ToolRun::targetCpuMillis).toList()).format(1), "");
        List<Headline> headlines = List.of(
                new Headline("`perfpin stat --pid` / `perf stat -t`, " + threads + " threads: launch to first count",
                        perfpinFirst.format(1) + " ms", perfFirst.format(1) + " ms",
                        Summary.ratio(perfpinFirst, perfFirst).format(2) + "x", "", Verdict.noTarget()),
                new Headline("`perfpin stat --pid` / `perf stat -t`, " + threads + " threads: CPU time of the tool",
                        perfpinCpu.format(1) + " ms", perfCpu.format(1) + " ms",
                        Summary.ratio(perfpinCpu, perfCpu).format(2) + "x", "", Verdict.noTarget()));
        return new Section(TITLE, headlines, List.of(table), List.of(
                "One `Service " + WORKERS + " 600 " + PARKED + "` JVM (" + WORKERS + " workers spinning and napping, "
                        + PARKED + " parked threads); both tools count its " + threads + " worker and parked threads"
                        + " for the events " + EVENTS + ", every " + INTERVAL_MILLIS + " ms, " + INTERVALS
                        + " intervals, printing CSV; " + workspace.runs() + " runs of each, alternating. perf is given"
                        + " the TIDs (read from /proc/PID/task/*/comm), perfpin the regex `worker-.*|parked-.*`.",
                "First count: the first line of counts on the tool's output, from the moment it was launched. CPU: user"
                        + " plus system time of the tool's process as wait4 reports it (runtimed.c); the counted JVM's"
                        + " from /proc/PID/stat before and after, which includes its own workers' spinning: the"
                        + " difference between the two columns is what the tool made the JVM do (perfpin stat takes"
                        + " one thread dump of it to name its threads)."));
    }

    private static Section notMeasured(String why) {
        return new Section(TITLE, List.of(new Headline("`perfpin stat --pid` / `perf stat -t`", "", "", "", "",
                Verdict.notMeasured(why))), List.of(), List.of("Not measured: " + why + "."));
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

    /** Runs a tool under runtimed, timing the first line of its output that carries {@code countMarker}. */
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
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (first < 0 && line.contains(countMarker)) {
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
        if (process.exitValue() != 0 || first < 0) {
            throw new IOException(String.join(" ", tool.subList(0, 2)) + " exited " + process.exitValue()
                    + (first < 0 ? " without a count" : "") + ": " + String.join(" | ", said));
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
