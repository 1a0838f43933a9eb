package io.perfpin.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A JSON-lines recording ({@link ThreadRecords}) read back as one record per thread: the thread's final
 * record, or, for a thread the recording has no final record of (the JVM died, or still runs), its last
 * live sample. Threads are told apart by TID and Java thread id, since a TID is reused after its thread
 * ends; they come in the order they first appear. {@code @Counted} methods likewise ({@link MethodRecord}), and
 * the first {@link RunRecord}, which says what the recording was made on, and the {@link EndRecord}, which says
 * whether it holds all it was to hold.
 *
 * <p>A JVM that crashed mid-write leaves its last line cut short: that line alone is skipped, with a
 * warning. A line longer than 1 MiB ({@link JsonLinesReader}) is none a perfpin agent writes (it cuts thread names,
 * {@link ThreadRecords#MAX_NAME_CHARS}): it is skipped, said in the warning, and reading goes on. Any other line that
 * is not a record makes the file no perfpin recording. Records of other types than
 * these, which later versions may add, are passed over. Only the record kept for each thread and method stays
 * in memory, so reading takes memory in the number of threads and methods, not in the file's size.
 */
public final class Recording {
    private final List<ThreadRecord> threads;
    private final List<MethodRecord> methods;
    private final RunRecord run;
    private final JvmRecord jvm;
    private final EndRecord end;
    private final String warning;

    private Recording(
            List<ThreadRecord> threads,
            List<MethodRecord> methods,
            RunRecord run,
            JvmRecord jvm,
            EndRecord end,
            String warning) {
        this.threads = List.copyOf(threads);
        this.methods = List.copyOf(methods);
        this.run = run;
        this.jvm = jvm;
        this.end = end;
        this.warning = warning;
    }

    /**
     * @throws IOException              when the file cannot be read
     * @throws IllegalArgumentException when a line other than the last is not a record: no perfpin recording
     */
    public static Recording read(Path file) throws IOException {
        return read(file, record -> {});
    }

    /**
     * As {@link #read(Path)}, handing each thread record to {@code everyThreadRecord} as it is read, in the file's
     * order, live samples included: for what follows threads over time.
     */
    public static Recording read(Path file, Consumer<ThreadRecord> everyThreadRecord) throws IOException {
        Map<String, ThreadRecord> latest = new LinkedHashMap<>();
        Map<String, MethodRecord> methods = new LinkedHashMap<>();
        RunRecord run = null;
        JvmRecord jvm = null;
        EndRecord end = null;
        String badLine = null;
        int number = 0;
        int tooLong = 0;
        int firstTooLong = 0;
        try (JsonLinesReader lines = JsonLinesReader.open(file)) {
            while (lines.hasNext()) {
                number++;
                if (badLine != null) {
                    throw new IllegalArgumentException(badLine);
                }
                String line;
                try {
                    line = lines.next();
                } catch (JsonLinesReader.LineTooLongException e) {
                    firstTooLong = tooLong++ == 0 ? number : firstTooLong;
                    continue;
                }
                try {
                    Object record = record(line);
                    if (record instanceof ThreadRecord) {
                        ThreadRecord thread = (ThreadRecord) record;
                        keep(latest, thread.threadKey(), thread, ThreadRecord::isFinal);
                        everyThreadRecord.accept(thread);
                    } else if (record instanceof MethodRecord) {
                        MethodRecord method = (MethodRecord) record;
                        keep(methods, method.method(), method, MethodRecord::isFinal);
                    } else if (record instanceof RunRecord && run == null) {
                        run = (RunRecord) record;
                    } else if (record instanceof JvmRecord && jvm == null) {
                        jvm = (JvmRecord) record;
                    } else if (record instanceof EndRecord) {
                        end = (EndRecord) record;
                    }
                } catch (IllegalArgumentException e) {
                    badLine = file + " line " + number + " is not a perfpin record: " + e.getMessage();
                }
            }
        }
        List<String> skipped = new ArrayList<>();
        if (tooLong > 0) {
            skipped.add(file + " line " + firstTooLong
                    + (tooLong == 1 ? "" : " and " + (tooLong - 1) + " more") + " longer than "
                    + JsonLinesReader.MAX_LINE_BYTES + " bytes (1 MiB), which no record is; skipped "
                    + (tooLong == 1 ? "it" : "them"));
        }
        if (badLine != null) {
            skipped.add(badLine + "; skipped it, as a last line cut short by a crash");
        }
        return new Recording(
                new ArrayList<>(latest.values()),
                new ArrayList<>(methods.values()),
                run,
                jvm,
                end,
                skipped.isEmpty() ? null : String.join("; ", skipped));
    }

    /**
     * A ThreadRecord, a MethodRecord, a RunRecord, a JvmRecord, an EndRecord, or null for a type of a later version,
     * passed over.
     */
    private static Object record(String line) {
        Object json = JsonReader.parse(line);
        if (!(json instanceof Map)) {
            throw new IllegalArgumentException("not a JSON object");
        }
        Map<?, ?> object = (Map<?, ?>) json;
        Object type = object.get("type");
        if (ThreadRecords.SAMPLE.equals(type) || ThreadRecords.THREAD.equals(type)) {
            return ThreadRecord.fromJson(object);
        }
        if (MethodRecord.isMethodType(type)) {
            return MethodRecord.fromJson(object);
        }
        if (RunRecord.TYPE.equals(type)) {
            return RunRecord.fromJson(object);
        }
        if (JvmRecord.isJvmType(type)) {
            return JvmRecord.fromJson(object);
        }
        if (EndRecord.TYPE.equals(type)) {
            return EndRecord.fromJson(object);
        }
        if (!(type instanceof String)) {
            throw new IllegalArgumentException("no string field 'type'");
        }
        return null;
    }

    /** A final record stays; a live one replaces an earlier live one only. */
    private static <R> void keep(Map<String, R> latest, String key, R record, Predicate<R> isFinal) {
        R kept = latest.get(key);
        if (kept == null || !isFinal.test(kept) || isFinal.test(record)) {
            latest.put(key, record);
        }
    }

    /** One record per thread, in the order the threads first appear. */
    public List<ThreadRecord> threads() {
        return threads;
    }

    /** One record per {@code @Counted} method: its final one, else its last live one. */
    public List<MethodRecord> methods() {
        return methods;
    }

    /** The machine and the run, when the recording says (the agent's recordings do, from this version on). */
    public Optional<RunRecord> run() {
        return Optional.ofNullable(run);
    }

    /**
     * The events selected for it, in {@code --events} order, counted or not, as its run record says; empty where it
     * does not say (stat's, an older agent's): then only the records show which events were counted.
     */
    public List<String> events() {
        return run == null ? List.of() : run.events();
    }

    /** The JVM that wrote it, from its first record; empty for a recording without one (stat's, an older agent's). */
    public Optional<JvmRecord> jvm() {
        return Optional.ofNullable(jvm);
    }

    /**
     * How the recording ended, from its last record: empty for one that was not closed (its JVM still runs or died)
     * or was made without one ({@code stat}'s, an older agent's).
     */
    public Optional<EndRecord> end() {
        return Optional.ofNullable(end);
    }

    /** What was skipped: lines too long for a record, and the last line, when it was cut short. */
    public Optional<String> warning() {
        return Optional.ofNullable(warning);
    }
}
