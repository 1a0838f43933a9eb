package io.perfpin.cli;

import io.perfpin.files.FileErrors;
import io.perfpin.report.Recording;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The JVMs that a recorded JVM started with the same agent options (JMH's forks, the children of any launcher that
 * passes its JVM's arguments on), each recorded beside the file named ({@link RecordingFile#family}): written after
 * that JVM's own report, each under its heading, by {@code report} and {@code run} alike. One that cannot be read is
 * said on stderr, and the others are still written.
 */
final class StartedJvms {
    private StartedJvms() {
    }

    /** Writes every JVM recorded beside {@code named}, its threads that {@code threads} selects, said as command's. */
    static void write(String command, Path named, ThreadsOption threads, ReportOutput out) throws IOException {
        List<Path> family = RecordingFile.family(named);
        for (Path child : family.subList(1, family.size())) {
            Recording started;
            try {
                started = Recording.read(child);
            } catch (IOException unreadable) {
                skipped(command, child, FileErrors.reason(unreadable));
                continue;
            } catch (IllegalArgumentException notARecording) {
                skipped(command, child, notARecording.getMessage());
                continue;
            }
            ReportCommand.caveats(command, child, started);
            List<ThreadRecord> picked = threads.selected(started.threads());
            out.startedJvm(started.jvm().orElseThrow(), child, picked.isEmpty() ? "(no thread recorded there"
                    + " matches " + threads.describe() + ")" : null);
            ReportCommand.report(started, picked, out);
        }
    }

    private static void skipped(String command, Path child, String why) {
        System.err.println(TerminalText.escape("perfpin " + command + ": skipped " + child + ": " + why));
    }
}
