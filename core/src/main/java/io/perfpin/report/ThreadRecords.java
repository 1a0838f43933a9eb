package io.perfpin.report;

import java.nio.file.Path;

/**
 * The JSON-lines records of threads, the schema the README documents: {@code type} is {@code "sample"}
 * for a live sample and {@code "thread"} for a thread's final summary; both carry {@code name}, {@code tid},
 * {@code javaId}, {@code cpus}, {@code pin} ({@link PinSource}), {@code counters}, {@code coverage},
 * {@code metrics} and {@code unsupported}, {@code source} where some value did not come from perf_event_open
 * ({@link ThreadReport#sources()}), and {@code state} ({@link ThreadState}) where it is known. A report that joins
 * several recordings adds {@code recording}, the file each record was read from, after {@code type}. A number that
 * is not finite, which JSON cannot carry (a recording's {@code 1e309} reads as infinite), is written {@code null},
 * as one that could not be computed. {@code pmu} names the simulated PMU that made the hardware counts, in tests
 * only ({@link ThreadReport#pmu()}). A virtual thread's final record ({@link #virtualToJson}) has {@code tid} -1 and
 * {@code "virtual":true}, {@code mounts} (how many times it was mounted while counted) and {@code carriers} (the TIDs
 * of the carrier threads it ran on, at most the first 16). {@code "nameCut":true} says the name is cut: one longer
 * than {@link #MAX_NAME_CHARS} is cut here to its first {@link #MAX_NAME_CHARS} characters, so that a record stays far
 * below the line a reader takes ({@link JsonLinesReader#MAX_LINE_BYTES}), however a thread is named; a live view's
 * comes cut from the agent's stats file ({@link ThreadReport#nameCut()}).
 */
public final class ThreadRecords {
    public static final String SAMPLE = "sample";
    public static final String THREAD = "thread";
    /** The {@code tid} of a virtual thread's record. */
    public static final int VIRTUAL_TID = -1;
    /** The characters of a name a record keeps: 1,024, as many bytes as the stats file keeps, or more. */
    public static final int MAX_NAME_CHARS = 1024;

    private ThreadRecords() {}

    public static String toJson(String type, long epochMillis, ThreadReport report) {
        return toJson(type, null, epochMillis, report);
    }

    /** @param recording the file the record was read from, where a report joins several; null for none */
    public static String toJson(String type, Path recording, long epochMillis, ThreadReport report) {
        return fields(type, recording, epochMillis, report).end();
    }

    /** A virtual thread's final record: its counts over the time it was mounted. */
    public static String virtualToJson(long epochMillis, ThreadReport report, int mounts, int[] carriers) {
        return fields(THREAD, null, epochMillis, report)
                .field("virtual", true)
                .field("mounts", mounts)
                .field("carriers", carriers)
                .end();
    }

    private static Json fields(String type, Path recording, long epochMillis, ThreadReport report) {
        Json json = Json.object().field("type", type);
        if (recording != null) {
            json.field("recording", recording.toString());
        }
        String name = report.name();
        boolean tooLong = name.length() > MAX_NAME_CHARS;
        json.field("time", epochMillis)
                .field("name", tooLong ? kept(name) : name)
                .field("tid", report.tid())
                .field("javaId", report.javaId())
                .field("cpus", report.cpus())
                .field("pin", report.pin().text())
                .field("wallNanos", report.wallNanos())
                .field("counters", report.counters())
                .field("coverage", report.coverage())
                .field("metrics", report.metrics())
                .field("unsupported", report.unsupported());
        if (tooLong || report.nameCut()) {
            json.field("nameCut", true);
        }
        // Only where it says something: every value of the agent's records comes from perf_event_open.
        if (!report.sources().isEmpty()) {
            json.field("source", report.sources());
        }
        if (report.state() != null) {
            json.field("state", report.state().text());
        }
        // Only in tests: hardware counts that no processor made are never mistaken for measurements.
        if (report.pmu() != null) {
            json.field("pmu", report.pmu());
        }
        return json;
    }

    /** The first {@link #MAX_NAME_CHARS} characters of {@code name}, without parting a surrogate pair. */
    private static String kept(String name) {
        int end = Character.isHighSurrogate(name.charAt(MAX_NAME_CHARS - 1)) ? MAX_NAME_CHARS - 1 : MAX_NAME_CHARS;
        return name.substring(0, end);
    }
}
