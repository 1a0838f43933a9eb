package io.perfpin.cli;

import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.VirtualThreadGroups;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What {@code run} prints from the recordings once the application has exited: the watched JVM's totals when it
 * ended before a live view began, its {@code @Counted} methods, then the totals of each JVM it started with the
 * agent's options (recorded beside its file, {@link RecordingFile#family}), and where all of it lies. A recording
 * that cannot be read is said in one line, and the others are still summarised.
 */
final class RunRecordings {
    private final Path record;
    private final ThreadsOption threads;
    /** How its tables are laid out: as report lays out a recording's, with run's --columns, --wide, --sort, --top. */
    private final TableLayout table;

    /** The file at {@link #record} before the run ({@link SameFile}: its inode, or its path where there was none). */
    private final Object before;

    /** Made before the JVM starts: what is at {@code record} then is not the run's. */
    RunRecordings(Path record, ThreadsOption threads, ViewOptions view) {
        this.record = record;
        this.threads = threads;
        this.table = RecordingReport.table(view);
        this.before = SameFile.of(record);
    }

    /**
     * Whether the run's agent made its recording: the agent replaces a file there with a new one (another inode,
     * while the old one is still there), so one that is still the file found before is an earlier run's.
     */
    boolean made() {
        return Files.exists(record) && !SameFile.of(record).equals(before);
    }

    /**
     * Writes the summary to {@code out}, in its format.
     *
     * @param watched whether a live view showed the JVM (and wrote its totals)
     */
    void summarise(boolean watched, ReportOutput out) throws IOException {
        Recording recording = Recording.read(record);
        if (!watched) {
            // It ended before the view began (a short application): its totals are in its recording.
            out.people()
                    .println("perfpin run: the JVM ended before a live view began. Totals per thread, from its"
                            + " recording:");
            // virtual threads by group, as the live view shows them: the agent selected them (virtual=)
            List<ThreadRecord> rows = recording.threads().stream()
                    .filter(r -> r.isVirtual() || threads.selects(r.report().name()))
                    .collect(Collectors.toList());
            out.records(VirtualThreadGroups.folded(rows), recording.events(), table);
        }
        out.methods(recording.methods(), table);
        StartedJvms.write("run", record, threads, out, table);
        List<Path> family = RecordingFile.family(record);
        int started = family.size() - 1;
        ReportTable.fold(
                        TerminalText.escape("Recorded in " + record
                                + (started == 0
                                        ? ""
                                        : ", and for the "
                                                + (started == 1 ? "JVM" : started + " JVMs")
                                                + " it started, beside it ("
                                                + family.subList(1, family.size()).stream()
                                                        .map(p ->
                                                                p.getFileName().toString())
                                                        .collect(Collectors.joining(", "))
                                                + ")")
                                + " (perfpin report " + record + ")"),
                        table.width())
                .forEach(out.people()::println);
    }
}
