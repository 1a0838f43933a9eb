package io.perfpin.bench;

import io.perfpin.apps.VirtualMounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Benchmark 10: what following virtual threads costs per mount and unmount. {@link VirtualMounts} runs
 * {@value #THREADS} virtual threads that only yield, {@value #YIELDS} times each (a yield is an unmount and a mount),
 * in alternating child JVMs on a JDK with virtual threads (this one, else {@code JDK25_HOME}'s): without an agent,
 * which is the virtual thread's own mount cost; with the agent and no {@code virtual=} (nothing followed); with
 * {@code virtual=} matching no name (each virtual thread checked once, then not counted); and with
 * {@code virtual=.*} (each mount and unmount reads its carrier's counters).
 */
final class VirtualMountCost {
    static final int THREADS = 100;
    static final int YIELDS = 20_000;
    private static final String EVENTS = "events=task-clock";

    private VirtualMountCost() {}

    static Section run(Workspace workspace) throws IOException, InterruptedException {
        String title = "10. Virtual threads: the cost of a mount and unmount pair";
        Path java = javaWithVirtualThreads();
        if (java == null) {
            return new Section(
                    title,
                    List.of(Headline.alone(
                            "mount and unmount pair, virtual=.*",
                            "",
                            "",
                            "",
                            "",
                            Verdict.notMeasured("needs JDK 21 or later: run ./bench on one, or set JDK25_HOME"))),
                    List.of(),
                    List.of());
        }
        JavaCommand plain = workspace.app(
                java,
                VirtualMounts.class,
                "--threads",
                Integer.toString(THREADS),
                "--yields",
                Integer.toString(YIELDS));
        List<IntFunction<JavaCommand>> configurations = List.of(
                i -> plain,
                i -> plain.withJvmOption(workspace.agentOption("threads=none;" + EVENTS)),
                i -> plain.withJvmOption(workspace.agentOption("threads=none;virtual=none;" + EVENTS)),
                i -> plain.withJvmOption(workspace.agentOption("threads=none;virtual=.*;" + EVENTS)));
        List<List<ChildRun>> runs = Alternation.run(configurations, workspace.runs());
        List<Summary> perPair = new ArrayList<>();
        for (List<ChildRun> configuration : runs) {
            perPair.add(Summary.of(configuration.stream()
                    .map(r -> r.resultValue("ms") * 1e6 / r.resultValue("yields"))
                    .toList()));
        }
        Summary none = perPair.get(0);
        String[] names = {
            "no agent: the virtual thread's own unmount and mount",
            "agent, no virtual= option",
            "agent, virtual=none: checked once, not counted",
            "agent, virtual=.*: every one counted (" + EVENTS + ")"
        };
        MarkdownTable table =
                new MarkdownTable("", "ns per yield (an unmount and a mount): median (min–max)", "over no agent");
        for (int i = 0; i < names.length; i++) {
            table.row(
                    names[i],
                    perPair.get(i).format(0),
                    i == 0 ? "" : Summary.difference(perPair.get(i), none).format(0));
        }
        Summary counted = Summary.difference(perPair.get(3), none);
        Summary unselected = Summary.difference(perPair.get(2), none);
        List<Headline> headlines = List.of(
                Headline.alone(
                        "mount and unmount pair, virtual=.*: what the agent adds",
                        none.format(0) + " ns a pair",
                        counted.format(0) + " ns",
                        "",
                        "",
                        Verdict.noTarget()),
                Headline.alone(
                        "mount and unmount pair, virtual= matching none: what the agent adds",
                        none.format(0) + " ns a pair",
                        unselected.format(0) + " ns",
                        "",
                        "",
                        Verdict.noTarget()));
        List<String> notes = List.of(
                "`VirtualMounts --threads " + THREADS + " --yields " + YIELDS + "` on " + java
                        + ", " + workspace.runs()
                        + " runs of each configuration, alternating, after one untimed round; its"
                        + " `ms` figure spans starting and joining every virtual thread, divided by the yields. Each"
                        + " run is a fresh JVM: the figures include the agent's start, spread over "
                        + (THREADS * YIELDS) + " yields.",
                "With virtual=, JVMTI's mount and unmount events are on, which HotSpot posts from"
                        + " the transition itself: their cost is in both virtual= rows, the read(2) of the carrier's"
                        + " group twice a pair only in the last.");
        return new Section(title, headlines, List.of(table), notes);
    }

    /** This JVM's java when it has virtual threads, else JDK25_HOME's; null when neither has. */
    private static Path javaWithVirtualThreads() {
        if (Runtime.version().feature() >= 21) {
            return Path.of(System.getProperty("java.home"), "bin", "java");
        }
        String home = System.getenv("JDK25_HOME");
        Path java = home == null || home.isEmpty() ? null : Path.of(home, "bin", "java");
        return java != null && Files.isExecutable(java) ? java : null;
    }
}
