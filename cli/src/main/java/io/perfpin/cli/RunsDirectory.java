package io.perfpin.cli;

import io.perfpin.PerfpinDirectory;
import io.perfpin.files.OwnedDirectory;
import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where {@code run} records without {@code --record}: the perfpin directory's {@code runs/}, kept within a budget, so
 * that runs on a long-lived host do not fill its runtime directory. Before each run the recordings there beyond the
 * newest {@link #KEEP}, or past {@link #BYTES} in all, are removed: only files named as run names them (a JVM that
 * ran beside it, {@code run-T.PID.jsonl}, included), of this user's, and none that an agent still writes.
 */
final class RunsDirectory {
    /** The newest recordings kept, the new one not counted. */
    static final int KEEP = 20;
    /** 1 GiB: what the kept recordings may hold in all. */
    static final long BYTES = 1L << 30;

    private static final Pattern OURS = Pattern.compile("run-\\d+(\\.\\d+)?\\.jsonl");

    private RunsDirectory() {}

    /** The file of a new run's recording; {@link #makeRoom} makes room for it once the run is sure to start. */
    static Path next() throws IOException {
        return PerfpinDirectory.open(PerfpinDirectory.RUNS).resolve("run-" + System.currentTimeMillis() + ".jsonl");
    }

    /** Removes the oldest recordings past the budget, said in one line. */
    static void makeRoom() throws IOException {
        OwnedDirectory runs = PerfpinDirectory.open(PerfpinDirectory.RUNS);
        int removed = runs.prune(name -> OURS.matcher(name).matches(), KEEP, BYTES);
        if (removed > 0) {
            System.err.println(TerminalText.escape("perfpin run: removed the " + removed + " oldest recording"
                    + (removed == 1 ? "" : "s") + " in " + runs.path() + ", which keeps the newest " + KEEP
                    + " (1 GiB at most); --record FILE keeps one elsewhere"));
        }
    }
}
