package io.perfpin.registry;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.nativeio.Backends;
import io.perfpin.report.EndRecord;
import io.perfpin.report.JsonLinesFile;
import io.perfpin.report.RecordingFile;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import io.perfpin.report.ThreadState;
import io.perfpin.stats.AgentNotice;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The registry's JSON-lines recording ({@code out=}): a sample per counted thread every tick, a final record per
 * thread, the lines of the tick's listener, and an {@link EndRecord} last. Written by the sampler only; without a
 * recording every write does nothing. Its one descriptor comes out of the registry's budget.
 *
 * <p>A write that fails (a full disk, a file-size limit) ends the recording there: it is said once, the file keeps
 * its whole lines and ends with a record marked incomplete, saying why, and nothing more is written to it; counting,
 * the stats file and the exports go on. No write throws: a recording that cannot be written is no reason to skip a
 * thread's final record in the stats file, its descriptors or its pin.
 */
final class RecordingWriter implements Consumer<String> {
    /** Opens a recording's file, its {@link io.perfpin.report.JvmRecord} written: {@link RecordingFile#create}. */
    @FunctionalInterface
    interface Opener {
        JsonLinesFile open(Path named, long pid, long epochMillis) throws IOException;
    }

    /** {@link RecordingFile#create}; a class, not a method reference, for the reason {@link ThreadRegistry} gives. */
    static final Opener FILES = new Opener() {
        @Override
        public JsonLinesFile open(Path named, long pid, long epochMillis) throws IOException {
            return RecordingFile.create(named, pid, epochMillis);
        }
    };

    /** Null when nothing is recorded. */
    private final JsonLinesFile file;

    private final DescriptorBudget descriptors;
    private final Notices notices;
    /** Set once a write failed: nothing more is written. */
    private boolean ended;

    private RecordingWriter(JsonLinesFile file, DescriptorBudget descriptors, Notices notices) {
        this.file = file;
        this.descriptors = descriptors;
        this.notices = notices;
    }

    /**
     * Creates {@code path} with {@code opener}, or records nothing when it is null.
     *
     * @throws IOException when it cannot be created, or the budget has no descriptor left for it
     */
    static RecordingWriter create(Path path, DescriptorBudget descriptors, Notices notices, Opener opener)
            throws IOException {
        if (path == null) {
            return new RecordingWriter(null, descriptors, notices);
        }
        if (!descriptors.take(1)) {
            throw new IOException("no file descriptor is left for it: " + descriptors.reason());
        }
        try {
            return new RecordingWriter(
                    opener.open(path, ThisProcess.pid(), System.currentTimeMillis()), descriptors, notices);
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
    void sample(TrackedThread t, long epochMillis) {
        if (file != null && !ended && t.isCounted()) {
            write(ThreadRecords.toJson(ThreadRecords.SAMPLE, epochMillis, report(t)));
        }
    }

    /** The thread's final record. */
    void finalRecord(TrackedThread t, long epochMillis) {
        if (file != null && !ended) {
            write(ThreadRecords.toJson(ThreadRecords.THREAD, epochMillis, report(t)));
        }
    }

    /** One line of a tick's listener. */
    @Override
    public void accept(String jsonLine) {
        if (file != null && !ended) {
            write(jsonLine);
        }
    }

    void flush() {
        if (file != null && !ended) {
            try {
                file.flush();
            } catch (IOException e) {
                failed(e);
            }
        }
    }

    private void write(String jsonLine) {
        try {
            file.write(jsonLine);
        } catch (IOException e) {
            failed(e);
        }
    }

    /** Ends the recording after a write failed: said once, and its last record says it is incomplete, and why. */
    private void failed(IOException e) {
        ended = true;
        String why = "writing it failed: " + e.getMessage();
        notices.sayOnce(new AgentNotice(
                AgentNotice.Kind.FAILURE,
                "the recording " + file.path(),
                "the recording " + file.path() + " stopped: " + why
                        + "; it ends there, marked incomplete; counting goes on",
                e));
        try {
            file.endWith(EndRecord.incomplete(System.currentTimeMillis(), why).toJson());
        } catch (IOException noRoom) {
            notices.sayOnce(AgentNotice.refused("the recording " + file.path() + " has no room left to say it is"
                    + " incomplete: " + noRoom.getMessage()));
        }
    }

    /** Ends the recording, complete unless a write failed before, closes the file and gives its descriptor back. */
    void close() {
        if (file == null) {
            return;
        }
        try {
            if (!ended) {
                write(EndRecord.complete(System.currentTimeMillis()).toJson());
                flush();
            }
            file.close();
        } catch (IOException e) {
            notices.sayOnce(AgentNotice.refused("closing the recording failed: " + e.getMessage()));
        } finally {
            descriptors.giveBack(1);
        }
    }

    private static ThreadReport report(TrackedThread t) {
        return ThreadReport.of(
                        t.name,
                        t.tid,
                        t.javaId,
                        t.cpus,
                        t.events,
                        t.counts,
                        t.counters.unsupported(),
                        t.readToNanos() - t.enrolledNanos)
                .withPin(t.pinSource())
                .withSources(t.counters.sources())
                .withState(t.hasEnded() ? ThreadState.ENDED : ThreadState.RUNNING)
                .withPmu(Backends.simulatedPmu());
    }
}
