package io.perfpin.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Two configurations of a child JVM, run in turn: first-second, then second-first, and so on, so that a
 * drift of the machine (another guest waking up, the page cache warming) falls on both alike. One pair
 * runs first untimed: it fills the page cache with the JDK's and the agent's files.
 */
public final class Alternation {
    private Alternation() {
    }

    /** The measured runs of each configuration, in the order they ran. */
    public record Runs(List<ChildRun> first, List<ChildRun> second) {
    }

    /**
     * @param first  the command of run {@code i} (0 is the untimed warm-up), so a run can name its own files
     * @param runs   measured runs of each configuration
     */
    public static Runs run(IntFunction<JavaCommand> first, IntFunction<JavaCommand> second, int runs)
            throws IOException, InterruptedException {
        first.apply(0).run();
        second.apply(0).run();
        List<ChildRun> a = new ArrayList<>();
        List<ChildRun> b = new ArrayList<>();
        for (int i = 1; i <= runs; i++) {
            if (i % 2 == 1) {
                a.add(first.apply(i).run());
                b.add(second.apply(i).run());
            } else {
                b.add(second.apply(i).run());
                a.add(first.apply(i).run());
            }
        }
        return new Runs(a, b);
    }
}
