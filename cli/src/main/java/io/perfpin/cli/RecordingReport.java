package io.perfpin.cli;

import io.perfpin.report.EndRecord;
import io.perfpin.report.Hint;
import io.perfpin.report.Hints;
import io.perfpin.report.Recording;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * How a recording is reported, by {@code report} and by {@code run} alike (its own and those of the JVMs it
 * started): its table's layout, the hints its threads' numbers suggest, and what its reader must know beside them.
 */
final class RecordingReport {
    private RecordingReport() {}

    /**
     * A table of recorded threads laid out as {@code view} says, as run's totals are (by default 120 columns wide,
     * the busiest first), with a state column as theirs, in their words: a final record of a thread that still ran
     * is {@code running at exit}, since the recording ended around it, as run's JVM exited (an attach's recording may
     * end as the agent detaches, which its records do not tell apart). CSV and JSON keep every value, in the
     * recording's order.
     */
    static TableLayout table(ViewOptions view) {
        return view.table().withRunningLabel(LiveEnding.EXITED.runningLabel());
    }

    /** The hints that the threads' numbers suggest. */
    static List<Hint> hints(List<ThreadRecord> records) {
        List<Hint> hints = new ArrayList<>();
        // A recording carries neither the pid nor the pin rules: only a one-CPU affinity shows a pin.
        records.forEach(r -> hints.addAll(Hints.of(r.report(), false, OptionalLong.empty())));
        return hints;
    }

    /**
     * What a reader of {@code file} must know beside its records, a line each on stderr, said as {@code command}'s:
     * a last line cut short, a recording that stopped early ({@link EndRecord}).
     */
    static void caveats(String command, Path file, Recording recording) {
        recording.warning().ifPresent(w -> System.err.println(TerminalText.escape("perfpin " + command + ": " + w)));
        recording
                .end()
                .map(EndRecord::incompleteLine)
                .ifPresent(line ->
                        System.err.println(TerminalText.escape("perfpin " + command + ": " + file + ": " + line)));
    }
}
