package io.perfpin.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Configurations of a child JVM, run in turn: first to last, then last to first (AB BA ..., ABC CBA ...), so that a
 * drift of the machine (another guest waking up, the page cache warming) falls on all alike. One round runs first
 * untimed: it fills the page cache with the JDK's and the agent's files.
 */
public final class Alternation {
    private Alternation() {}

    /** The measured runs of each configuration, in the order they ran. */
    public record Runs(List<ChildRun> first, List<ChildRun> second) {}

    /**
     * @param first  the command of run {@code i} (0 is the untimed warm-up), so a run can name its own files
     * @param runs   measured runs of each configuration
     */
    public static Runs run(IntFunction<JavaCommand> first, IntFunction<JavaCommand> second, int runs)
            throws IOException, InterruptedException {
        List<List<ChildRun>> both = run(List.of(first, second), runs);
        return new Runs(both.get(0), both.get(1));
    }

    /** As {@link #run(IntFunction, IntFunction, int)}, for any number of configurations: their runs, in order. */
    public static List<List<ChildRun>> run(List<IntFunction<JavaCommand>> configurations, int runs)
            throws IOException, InterruptedException {
        List<List<ChildRun>> measured = new ArrayList<>();
        for (IntFunction<JavaCommand> configuration : configurations) {
            configuration.apply(0).run();
            measured.add(new ArrayList<>());
        }
        int n = configurations.size();
        for (int i = 1; i <= runs; i++) {
            for (int k = 0; k < n; k++) {
                int c = i % 2 == 1 ? k : n - 1 - k;
                measured.get(c).add(configurations.get(c).apply(i).run());
            }
        }
        return measured;
    }
}
