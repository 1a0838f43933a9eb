package io.perfpin.bench;

import io.perfpin.apps.ThreadChurner;
import io.perfpin.options.AgentOptionText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;

/**
 * Benchmark 5: what it costs to start and end a thread that is counted from its first instruction, beside the peer
 * that does the same and the kernel's own floor. {@link ThreadChurner} starts {@value #THREADS} short threads that
 * touch no memory, at most four at once, in alternating child JVMs: without an agent, with perfpin's agent at its
 * default events and with {@code events=task-clock}, and with async-profiler ({@code event=cpu}, which opens a perf
 * event for each thread as it starts). {@code threadcounters.c} churns threads the same way with no JVM, plain and
 * with the counters perfpin opens, opened by each thread itself or by another thread while it waits.
 */
final class ThreadChurn {
    static final int THREADS = 3000;
    private static final int AT_ONCE = 4;
    private static final double TARGET_EXTRA_MICROS = 60;
    private static final double TARGET_RATIO = 1.0;
    private static final String TASK_CLOCK = "task-clock";
    /** The software events of the agent's default, sched: those the kernel floor can open on any machine. */
    private static final List<String> SCHED =
            List.of("task-clock", "context-switches", "cpu-migrations", "page-faults", "minor-faults", "major-faults");

    private ThreadChurn() {}

    /** µs per thread of one configuration: wall (ThreadChurner's own figure) and the child's CPU. */
    private record PerThread(Summary wall, Summary cpu) {
        static PerThread of(List<ChildRun> runs, boolean cpuKnown) {
            ToDoubleFunction<ChildRun> cpu = r -> r.cpuMillis() * 1000 / THREADS;
            return new PerThread(
                    Summary.of(runs.stream()
                            .map(r -> r.resultValue("ms") * 1000 / THREADS)
                            .toList()),
                    cpuKnown ? Summary.of(runs.stream().mapToDouble(cpu).toArray()) : null);
        }

        String cpuText(PerThread baseline) {
            return cpu == null
                    ? ""
                    : cpu.format(1) + " (+" + Summary.number(cpu.median() - baseline.cpu.median(), 1) + ")";
        }
    }

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        JavaCommand plain = workspace.app(ThreadChurner.class, "--threads", Integer.toString(THREADS), "--pages", "0");
        AsyncProfiler peer = workspace.asyncProfiler();
        List<IntFunction<JavaCommand>> configurations = new ArrayList<>(List.of(
                i -> plain,
                i -> plain.withJvmOption(workspace.agentOption(null)),
                i -> plain.withJvmOption(workspace.agentOption("events=" + TASK_CLOCK))));
        if (peer.missing() == null) {
            configurations.add(
                    i -> plain.withJvmOption(peer.agentOption(workspace.scratch("churn-" + i + ".collapsed"))));
        }
        List<List<ChildRun>> runs = Alternation.run(configurations, workspace.runs());
        boolean cpuKnown = workspace.cpuUnknown() == null;
        PerThread none = PerThread.of(runs.get(0), cpuKnown);
        PerThread defaults = PerThread.of(runs.get(1), cpuKnown);
        PerThread taskClock = PerThread.of(runs.get(2), cpuKnown);
        PerThread profiler = peer.missing() == null ? PerThread.of(runs.get(3), cpuKnown) : null;

        Floor floorTaskClock = Floor.measure(workspace, List.of(TASK_CLOCK));
        Floor floorSched = Floor.measure(workspace, SCHED);

        MarkdownTable table = new MarkdownTable(
                        "",
                        "µs per thread started and ended: median (min–max)",
                        "over no agent",
                        "CPU µs per thread (over no agent)")
                .row("no agent", none.wall().format(1), "", none.cpuText(none))
                .row(
                        "perfpin agent, default events (" + AgentOptionText.DEFAULT_EVENTS + ")",
                        defaults.wall().format(1),
                        Summary.difference(defaults.wall(), none.wall()).format(1),
                        defaults.cpuText(none))
                .row(
                        "perfpin agent, events=task-clock",
                        taskClock.wall().format(1),
                        Summary.difference(taskClock.wall(), none.wall()).format(1),
                        taskClock.cpuText(none));
        if (profiler != null) {
            table.row(
                    peer.name() + ", " + AsyncProfiler.optionsText(),
                    profiler.wall().format(1),
                    Summary.difference(profiler.wall(), none.wall()).format(1),
                    profiler.cpuText(none));
        } else {
            table.row("async-profiler", "not measured: " + peer.missing(), "", "");
        }
        MarkdownTable floor = Floor.table(floorTaskClock, floorSched);

        List<Headline> headlines = new ArrayList<>();
        String what = "thread start + end, ThreadChurner " + THREADS + " threads, per thread, ";
        Cost taskClockCost = Cost.measured(none.wall(), taskClock.wall(), profiler == null ? null : profiler.wall());
        Cost schedCost = Cost.measured(none.wall(), defaults.wall(), profiler == null ? null : profiler.wall());
        headlines.add(Headline.of(
                what + "events=task-clock",
                taskClockCost,
                peer.name(),
                Floor::micros,
                floorTaskClock.text(),
                "≤ +" + (int) TARGET_EXTRA_MICROS + " µs",
                Verdict.atMost(
                        taskClockCost.perfpinAdds(),
                        TARGET_EXTRA_MICROS,
                        v -> Summary.number(v, 1) + " µs",
                        floorTaskClock.cause())));
        headlines.add(ratioHeadline(what + "events=task-clock", taskClockCost, peer, floorTaskClock));
        headlines.add(ratioHeadline(
                what + "default events (" + AgentOptionText.DEFAULT_EVENTS + ")", schedCost, peer, floorSched));
        List<String> notes = new ArrayList<>(List.of(
                "`ThreadChurner --threads " + THREADS + " --pages 0`, " + workspace.runs() + " runs of each"
                        + " configuration, alternating (ABCD DCBA ...), after one untimed round; its `ms` figure spans"
                        + " starting and joining all threads. Without an agent this is what a thread costs on this"
                        + " machine at all. Each run is a fresh JVM, so the figures include what a JVM pays once: the"
                        + " agent's and the profiler's classes, the JIT compiling their code, the garbage collector.",
                "A ratio to async-profiler is that of what each adds to a thread over no agent: at most 1.0 means"
                        + " that counting a thread costs perfpin no more than it costs async-profiler to set its perf"
                        + " event up for it. The kernel's floor is what opening, reading and closing the same counters"
                        + " adds to a plain thread with no JVM (threadcounters.c, below)."));
        notes.add(
                cpuKnown
                        ? "CPU: user plus system time of the whole child JVM, every thread of it (the JIT's and the"
                                + " garbage collector's too), as wait4 reports it (runtimed.c), per thread churned."
                        : "CPU not measured: " + workspace.cpuUnknown());
        notes.addAll(Floor.notes(THREADS, AT_ONCE));
        return new Section(
                "5. Enrolment: thread start and end, beside async-profiler and the kernel's floor",
                headlines,
                List.of(table, floor),
                notes);
    }

    /** The row whose target is perfpin's addition at most the peer's. */
    private static Headline ratioHeadline(String what, Cost cost, AsyncProfiler peer, Floor floor) {
        String target = "≤ " + TARGET_RATIO + "x the peer's addition";
        Verdict verdict = Verdict.ratioAtMost(cost, TARGET_RATIO, peer, floor.cause());
        return Headline.of(what, cost, peer.name(), Floor::micros, floor.text(), target, verdict);
    }

    /**
     * threadcounters.c: the same churn in C, plain, counted by each thread itself, and opened for it by another;
     * µs per thread by kind of round, or why it could not run.
     */
    private record Floor(Map<String, Summary> kinds, String missing) {
        private static final String PLAIN = "plain";
        private static final String COUNTED = "counted";
        private static final String HANDED = "handed";

        static Floor measure(Workspace workspace, List<String> events) throws InterruptedException {
            try {
                List<String> command = new ArrayList<>(List.of(
                        workspace.programs().get("threadcounters").toString(),
                        Integer.toString(THREADS),
                        Integer.toString(AT_ONCE),
                        Integer.toString(workspace.runs())));
                command.addAll(events);
                List<String> lines = CPrograms.run(command, "threadcounters");
                return new Floor(
                        Map.of(PLAIN, kind(lines, PLAIN), COUNTED, kind(lines, COUNTED), HANDED, kind(lines, HANDED)),
                        null);
            } catch (IOException e) {
                return new Floor(Map.of(), e.getMessage());
            }
        }

        private static Summary kind(List<String> lines, String kind) throws IOException {
            String prefix = kind + "-us-per-thread ";
            double[] values = lines.stream()
                    .filter(l -> l.startsWith(prefix))
                    .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length())))
                    .toArray();
            if (values.length == 0) {
                throw new IOException("threadcounters printed no " + kind + " rounds: " + lines);
            }
            return Summary.of(values);
        }

        static MarkdownTable table(Floor taskClock, Floor sched) {
            MarkdownTable table = new MarkdownTable(
                    "threadcounters.c, no JVM",
                    "µs per thread, task-clock / the 6 sched events: median (min–max)",
                    "task-clock: over plain",
                    "the 6 sched events: over plain");
            for (Floor floor : List.of(taskClock, sched)) {
                if (floor.missing() != null) {
                    return table.row("not measured", floor.missing(), "", "");
                }
            }
            return table.row("plain threads", taskClock.get(PLAIN) + " / " + sched.get(PLAIN), "", "")
                    .row(
                            "each thread opens, reads and closes its counters",
                            taskClock.get(COUNTED) + " / " + sched.get(COUNTED),
                            taskClock.over(COUNTED),
                            sched.over(COUNTED))
                    .row(
                            "another thread opens them by TID while the thread waits",
                            taskClock.get(HANDED) + " / " + sched.get(HANDED),
                            taskClock.over(HANDED),
                            sched.over(HANDED));
        }

        private String get(String kind) {
            return kinds.get(kind).format(1);
        }

        private String over(String kind) {
            return Summary.difference(kinds.get(kind), kinds.get(PLAIN)).format(1);
        }

        static String micros(Summary perThread) {
            return perThread.format(1) + " µs";
        }

        /** The kernel's floor for the headline: what counting adds to a plain thread with no JVM. */
        String text() {
            return missing != null ? "not measured: " + missing : over(COUNTED) + " µs (threadcounters.c)";
        }

        /** What the kernel alone takes of a thread's counters, to say beside a missed target. */
        String cause() {
            return missing != null
                    ? ""
                    : "the kernel's own part, opening and closing the counters with no JVM, is " + over(COUNTED)
                            + " µs a thread (threadcounters.c)";
        }

        static List<String> notes(int threads, int atOnce) {
            return List.of("threadcounters.c churns " + threads + " threads, " + atOnce + " at once, in rounds that"
                    + " alternate: plain; counted, each thread opening its group (leader disabled, then enabled),"
                    + " reading it at its end and closing it, with one disabled event of each kind held open by the"
                    + " process as the agent holds them; handed, another thread opening the group by TID while the"
                    + " new thread waits for it, the only way to count a thread from its first instruction without"
                    + " opening on it. The first two rows give the kernel's floor; the third why perfpin opens a"
                    + " thread's counters on the thread itself.");
        }
    }
}
