package io.perfpin.cli;

import io.perfpin.files.FileErrors;
import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVMs that a recorded JVM started with the same agent options (JMH's forks, the children of any launcher that
 * passes its JVM's arguments on), each recorded beside the file named ({@link RecordingFile#family}): shown after
 * that JVM's own report, each under its heading, by {@code report} and {@code run} alike. One that cannot be read is
 * said on stderr, and the others are still shown.
 */
final class StartedJvms {
    private StartedJvms() {}

    /**
     * Writes every JVM recorded beside {@code named}, as report writes a recording: its threads that {@code threads}
     * selects, a table laid out as {@code table}, its {@code @Counted} methods and the hints; said as command's.
     */
    static void write(String command, Path named, ThreadsOption threads, ReportOutput out, TableLayout table)
            throws IOException {
        for (RecordedJvm started : read(command, named, threads)) {
            out.startedJvm(started);
            if (!started.threads().isEmpty()) {
                out.records(started.threads(), started.recording().events(), table);
            }
            out.methods(started.recording().methods(), table);
            out.hints(RecordingReport.hints(started.threads()));
        }
    }

    /** Reads every JVM recorded beside {@code named}, in the order they began; said as command's. */
    static List<RecordedJvm> read(String command, Path named, ThreadsOption threads) throws IOException {
        List<Path> family = RecordingFile.family(named);
        List<RecordedJvm> started = new ArrayList<>();
        for (Path child : family.subList(1, family.size())) {
            Recording recording;
            try {
                recording = Recording.read(child);
            } catch (IOException unreadable) {
                skipped(command, child, FileErrors.reason(unreadable));
                continue;
            } catch (IllegalArgumentException notARecording) {
                skipped(command, child, notARecording.getMessage());
                continue;
            }
            RecordingReport.caveats(command, child, recording);
            started.add(RecordedJvm.of(child, recording, threads, true));
        }
        return started;
    }

    private static void skipped(String command, Path child, String why) {
        System.err.println(TerminalText.escape("perfpin " + command + ": skipped " + child + ": " + why));
    }
}
