package io.perfpin.cli;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.EventFailure;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.report.TerminalText;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Two classic experiments under the agent, as {@code perfpin run} runs them: ping-pong between two threads
 * pinned to two CPUs, then two writers on adjacent fields and on padded ones (false sharing), each shown live
 * and summed up at the end with its hints. Where the machine has no hardware PMU it says so, and why, and the
 * software events still count.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = "Run ping-pong and false sharing under the agent with pinned threads: the live view, then"
                + " each thread's totals and hints.")
final class DemoCommand implements Callable<Integer> {
    /** What the experiments show: time on a CPU, IPC where there is a PMU, and that the pinned threads stay put. */
    private static final List<String> COLUMNS =
            List.of("task-clock", "ipc", "context-switches", "cpu-migrations", "page-faults");
    /** Often enough to watch a run of a few seconds move. */
    private static final Duration INTERVAL = Duration.ofMillis(500);

    @Option(
            names = "--events",
            paramLabel = "LIST",
            defaultValue = "ipc,sched",
            converter = EventsOption.Parser.class,
            description = "Events and presets, comma-separated (default: ${DEFAULT-VALUE}).")
    EventsOption.Selection events;

    @Mixin
    ViewOptions view;

    @Option(
            names = "--round-trips",
            paramLabel = "N",
            defaultValue = "2000000",
            description = "Ping-pong round trips (default: ${DEFAULT-VALUE}).")
    long roundTrips;

    @Option(
            names = "--increments",
            paramLabel = "N",
            defaultValue = "20000000",
            description = "Increments per false-sharing writer (default: ${DEFAULT-VALUE}).")
    long increments;

    @Override
    public Integer call() throws Exception {
        view.checkColumns(events);
        CpuSet allowed = CpuTopology.live().allowed();
        int first = allowed.first();
        int second = allowed.size() > 1 ? allowed.next(first + 1) : first;
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = ownClassPath();
        hardwareNote();

        System.out.println("== ping-pong: threads ping and pong pinned to "
                + CpuSet.of(first).inWords() + " and " + CpuSet.of(second).inWords()
                + ", spinning on two volatile fields ==");
        int pingPong = experiment(
                "ping|pong",
                List.of("ping@" + first, "pong@" + second),
                List.of(
                        java,
                        "-cp",
                        classPath,
                        "io.perfpin.apps.PingPong",
                        "--round-trips",
                        Long.toString(roundTrips)));
        System.out.println();
        System.out.println("== false sharing: writer 0 on CPU " + first + ", writer 1 on CPU " + second
                + ", adjacent fields, then padded ==");
        int sharing = experiment(
                ".*-writer-.*",
                List.of(".*-writer-0@" + first, ".*-writer-1@" + second),
                List.of(
                        java,
                        "-cp",
                        classPath,
                        "io.perfpin.apps.FalseSharing",
                        "--increments",
                        Long.toString(increments)));
        return pingPong != 0 ? pingPong : sharing;
    }

    /**
     * Runs {@code command} as {@code perfpin run --threads threads --pin ...} would, with the demo's events, interval
     * and view options (its own columns where --columns and --wide were not given); returns its exit code. A failure
     * is said in one line, as run says it, and the next experiment still runs.
     */
    private int experiment(String threads, List<String> pins, List<String> command) {
        try {
            return AgentSession.launch(
                    LaunchCommand.of(command),
                    AgentSettings.of(events, threads, pins, INTERVAL),
                    view.withDefaultColumns(COLUMNS),
                    OutputOptions.table());
        } catch (Exception e) {
            System.err.println(Perfpin.failure("perfpin run", e));
            return Perfpin.exitCode(e);
        }
    }

    /**
     * Says once, before the runs, which requested events this machine cannot count, each reason once after the
     * events it holds for, then those it counts; when it can count none of them, the runs would show nothing: that is
     * refused as a usage error before anything runs.
     */
    private void hardwareNote() {
        Syscalls syscalls = Backends.syscalls();
        List<EventFailure> unsupported;
        try (CounterGroup probe = CounterGroup.open(syscalls, syscalls.gettid(), events.list.events())) {
            unsupported = probe.unsupported();
        }
        // Without a PMU every hardware event has the same reason: said once, after the events it holds for.
        Map<String, List<String>> byReason = unsupported.stream()
                .collect(Collectors.groupingBy(
                        EventFailure::reason,
                        LinkedHashMap::new,
                        Collectors.mapping(f -> f.event().name(), Collectors.toList())));
        if (unsupported.size() == events.list.events().size()) {
            throw new IllegalArgumentException("--events " + events.text + ": nothing to count, none of its events"
                    + " can be counted on this machine ("
                    + byReason.entrySet().stream()
                            .map(e -> String.join(", ", e.getValue()) + ": " + e.getKey())
                            .collect(Collectors.joining("; "))
                    + "); software events can,"
                    + " e.g. --events sched");
        }
        if (!unsupported.isEmpty()) {
            List<String> notes = new ArrayList<>();
            byReason.forEach((reason, names) -> notes.add("not counting " + String.join(", ", names) + ": " + reason));
            List<String> counted = new ArrayList<>();
            events.list.events().forEach(e -> counted.add(e.name()));
            byReason.values().forEach(counted::removeAll);
            notes.add("counting " + String.join(", ", counted));
            notes.forEach(
                    note -> ReportTable.fold(TerminalText.escape("perfpin demo: " + note), ViewOptions.DEFAULT_WIDTH)
                            .forEach(System.out::println));
            System.out.println();
        }
    }

    /**
     * The jar this runs from (it carries the workloads); run from a build's classes, their class path less the
     * agent's classes, which must come from the agent's jar alone.
     */
    private static String ownClassPath() throws URISyntaxException {
        Path location = Paths.get(DemoCommand.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        if (location.toString().endsWith(".jar")) {
            return location.toString();
        }
        return ApplicationClassPath.withoutAgent(System.getProperty("java.class.path"));
    }
}
