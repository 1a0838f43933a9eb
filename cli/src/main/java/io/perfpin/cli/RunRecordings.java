package io.perfpin.cli;

import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
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

    RunRecordings(Path record, ThreadsOption threads) {
        this.record = record;
        this.threads = threads;
    }

    /** @param watched whether a live view showed the JVM (and printed its totals) */
    List<String> summary(boolean watched) throws IOException {
        List<String> lines = new ArrayList<>();
        Recording recording = Recording.read(record);
        if (!watched) {
            // It ended before the view began (a short application): its totals are in its recording.
            lines.add("perfpin run: the JVM ended before a live view began. Totals per thread, from its recording:");
            lines.addAll(ReportFormat.TABLE.render(selected(recording)));
        }
        lines.addAll(ReportFormat.TABLE.renderMethods(recording.methods()));
        List<Path> family = RecordingFile.family(record);
        for (Path child : family.subList(1, family.size())) {
            lines.addAll(started(child));
        }
        int started = family.size() - 1;
        lines.add(TerminalText.escape("Recorded in " + record + (started == 0 ? "" : ", and for the "
                + (started == 1 ? "JVM" : started + " JVMs") + " it started, beside it ("
                + family.subList(1, family.size()).stream().map(p -> p.getFileName().toString())
                .collect(Collectors.joining(", ")) + ")")
                + " (perfpin report " + record + ")"));
        return lines;
    }

    private List<String> started(Path child) {
        List<String> lines = new ArrayList<>();
        try {
            Recording recording = Recording.read(child);
            long pid = recording.jvm().orElseThrow().pid();
            List<ThreadRecord> selected = selected(recording);
            lines.add(TerminalText.escape("JVM " + pid + ", started with the agent's options: totals per thread, from"
                    + " its recording " + child + ":"));
            lines.addAll(selected.isEmpty() ? List.of("(no thread matches " + threads.describe() + ")")
                    : ReportFormat.TABLE.render(selected));
            lines.addAll(ReportFormat.TABLE.renderMethods(recording.methods()));
        } catch (IOException | IllegalArgumentException e) {
            lines.add(TerminalText.escape("perfpin run: cannot read " + child + ": " + e.getMessage()));
        }
        return lines;
    }

    private List<ThreadRecord> selected(Recording recording) {
        return recording.threads().stream().filter(r -> threads.selects(r.report().name()))
                .collect(Collectors.toList());
    }
}
