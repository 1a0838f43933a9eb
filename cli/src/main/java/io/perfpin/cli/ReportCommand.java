package io.perfpin.cli;

import io.perfpin.report.Hint;
import io.perfpin.report.Hints;
import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * The summary of a JSON-lines recording (the agent's {@code out=}, or {@code --format json --output}): one
 * record per thread, its final one or else its last live sample, then the hints its numbers suggest.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Summarise a recorded JSON-lines file: each thread's final record (or its last live sample"
                + " when the recording ended first), then hints.",
                "A last line cut short by a crash is skipped with a warning."})
final class ReportCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "A JSON-lines recording.")
    Path file;

    @Mixin
    ThreadsOption threads;

    @Mixin
    OutputOptions output;

    @Override
    public Integer call() throws IOException {
        Recording recording = read(file);
        List<ThreadRecord> records = selected(recording);
        if (recording.threads().isEmpty()) {
            throw new IllegalStateException(file + " holds no thread records");
        }
        if (records.isEmpty()) {
            throw new IllegalArgumentException("no thread recorded in " + file + " matches " + threads.describe());
        }
        try (ReportOutput out = output.open()) {
            report(recording, records, out);
            // The JVMs started with the same options, each in the file beside it that the agent wrote for it.
            List<Path> family = RecordingFile.family(file);
            for (Path child : family.subList(1, family.size())) {
                Recording started;
                try {
                    started = read(child);
                } catch (IllegalStateException unreadable) {
                    System.err.println(TerminalText.escape("perfpin report: skipped " + child + ": "
                            + unreadable.getMessage()));
                    continue;
                }
                List<ThreadRecord> picked = selected(started);
                out.startedJvm(started.jvm().orElseThrow(), child, picked.isEmpty() ? "(no thread recorded there"
                        + " matches " + threads.describe() + ")" : null);
                report(started, picked, out);
            }
        }
        return ExitCode.OK;
    }

    private static Recording read(Path file) throws IOException {
        Recording recording;
        try {
            recording = Recording.read(file);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + ": " + FileErrors.reason(e));
        } catch (IllegalArgumentException notARecording) {
            throw new IllegalStateException(notARecording.getMessage());
        }
        recording.warning().ifPresent(w -> System.err.println(TerminalText.escape("perfpin report: " + w)));
        return recording;
    }

    private List<ThreadRecord> selected(Recording recording) {
        return recording.threads().stream().filter(r -> threads.selects(r.report().name()))
                .collect(Collectors.toList());
    }

    private static void report(Recording recording, List<ThreadRecord> records, ReportOutput out) throws IOException {
        List<Hint> hints = new ArrayList<>();
        // A recording carries neither the pid nor the pin rules: only a one-CPU affinity shows a pin.
        records.forEach(r -> hints.addAll(Hints.of(r.report(), false, OptionalLong.empty())));
        if (!records.isEmpty()) {
            out.records(records);
        }
        out.methods(recording.methods());
        out.hints(hints);
    }
}
