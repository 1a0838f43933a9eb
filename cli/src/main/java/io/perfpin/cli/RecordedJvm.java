package io.perfpin.cli;

import io.perfpin.report.Recording;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.VirtualThreadGroups;
import java.nio.file.Path;
import java.util.List;

/**
 * One JVM's recording as {@code report} and {@code run} show it: the file, what it holds, and the threads that
 * {@code --threads} selects in it, in the recording's order, virtual threads folded into their groups
 * ({@link VirtualThreadGroups}).
 *
 * @param started  whether a JVM recorded beside it started it ({@link StartedJvms}): what its heading says
 * @param nothing  what is said in place of its threads when none is shown; null when some are
 */
record RecordedJvm(Path file, Recording recording, List<ThreadRecord> threads, boolean started, String nothing) {
    static RecordedJvm of(Path file, Recording recording, ThreadsOption threadsOption, boolean started) {
        return of(file, recording, threadsOption, started, 0);
    }

    /** @param busiest how many of each group of virtual threads are shown as themselves too, the busiest */
    static RecordedJvm of(Path file, Recording recording, ThreadsOption threadsOption, boolean started, int busiest) {
        ThreadsOption selection = threadsOption.forRecording(recording);
        List<ThreadRecord> threads = selection.selected(recording.threads());
        String nothing = !threads.isEmpty()
                ? null
                : recording.threads().isEmpty()
                        ? "(it holds no thread records)"
                        : TerminalText.escape("(no thread recorded there matches " + selection.describe() + ")");
        return new RecordedJvm(
                file, recording, List.copyOf(VirtualThreadGroups.folded(threads, busiest)), started, nothing);
    }

    /** The line above its threads where they are shown with others': which JVM, and where it was recorded. */
    String heading() {
        String jvm = recording
                .jvm()
                .map(j ->
                        "JVM " + j.pid() + (started ? ", started with the same agent options;" : ",") + " recorded in ")
                .orElse("Recorded in ");
        return TerminalText.escape(jvm + file + ":");
    }
}
