package io.perfpin.registry;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.report.JsonLinesFile;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import io.perfpin.stats.AgentNotice;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The registry's JSON-lines recording ({@code out=}): a sample per counted thread every tick, a final record per
 * thread, and the lines of the tick's listener. Written by the sampler only; without a recording every write does
 * nothing. Its one descriptor comes out of the registry's budget.
 */
final class RecordingWriter {
    /** Null when nothing is recorded. */
    private final JsonLinesFile file;
    private final DescriptorBudget descriptors;
    private final Notices notices;

    private RecordingWriter(JsonLinesFile file, DescriptorBudget descriptors, Notices notices) {
        this.file = file;
        this.descriptors = descriptors;
        this.notices = notices;
    }

    /**
     * Creates {@code path}, or records nothing when it is null.
     *
     * @throws IOException when it cannot be created, or the budget has no descriptor left for it
     */
    static RecordingWriter create(Path path, DescriptorBudget descriptors, Notices notices) throws IOException {
        if (path == null) {
            return new RecordingWriter(null, descriptors, notices);
        }
        if (!descriptors.take(1)) {
            throw new IOException("no file descriptor is left for it: " + descriptors.reason());
        }
        try {
            return new RecordingWriter(RecordingFile.create(path, ThisProcess.pid(), System.currentTimeMillis()),
                    descriptors, notices);
        } catch (IOException | RuntimeException e) {
            descriptors.giveBack(1);
            throw e;
        }
    }

    /** The file written: the one asked for, or this JVM's beside it ({@link RecordingFile}); null when none. */
    Path path() {
        return file == null ? null : file.path();
    }

    /** The thread's counts so far; nothing for a thread not counted, which has none until its final record. */
    void sample(TrackedThread t, long epochMillis) throws IOException {
        if (file != null && t.isCounted()) {
            file.write(ThreadRecords.toJson(ThreadRecords.SAMPLE, epochMillis, report(t)));
        }
    }

    /** The thread's final record. */
    void finalRecord(TrackedThread t, long epochMillis) throws IOException {
        if (file != null) {
            file.write(ThreadRecords.toJson(ThreadRecords.THREAD, epochMillis, report(t)));
        }
    }

    /** One line of the tick's listener; a failure is said, once. */
    void line(String jsonLine) {
        if (file != null) {
            try {
                file.write(jsonLine);
            } catch (IOException e) {
                notices.sayOnce(AgentNotice.refused("recording failed: " + e.getMessage()));
            }
        }
    }

    void flush() throws IOException {
        if (file != null) {
            file.flush();
        }
    }

    /** Closes the file and gives its descriptor back; a failure is said. */
    void close() {
        if (file == null) {
            return;
        }
        try {
            file.close();
        } catch (IOException e) {
            notices.sayOnce(AgentNotice.refused("closing the recording failed: " + e.getMessage()));
        } finally {
            descriptors.giveBack(1);
        }
    }

    private static ThreadReport report(TrackedThread t) {
        return ThreadReport.of(t.name, t.tid, t.javaId, t.cpus, t.events, t.counts, t.counters.unsupported(),
                t.readToNanos() - t.enrolledNanos).withPin(t.pinSource()).withSources(t.counters.sources())
                .withState(t.hasEnded() ? ThreadState.ENDED : ThreadState.RUNNING);
    }
}
