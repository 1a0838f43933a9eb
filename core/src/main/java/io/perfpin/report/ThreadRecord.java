package io.perfpin.report;

import java.util.Map;

/**
 * One JSON-lines record of a thread ({@link ThreadRecords}), read back: its type ({@link ThreadRecords#SAMPLE}
 * or {@link ThreadRecords#THREAD}), when it was written, and the thread's values.
 *
 * @param epochMillis when the record was written
 */
public record ThreadRecord(String type, long epochMillis, ThreadReport report) {
    /** Whether this is a thread's final summary rather than a live sample. */
    public boolean isFinal() {
        return ThreadRecords.THREAD.equals(type);
    }

    /** A virtual thread's final record ({@link ThreadRecords#virtualToJson}): it has no TID of its own. */
    public boolean isVirtual() {
        return report.tid() == ThreadRecords.VIRTUAL_TID;
    }

    /** What tells its thread from others in one recording: TID and Java thread id, since TIDs are reused. */
    public String threadKey() {
        return report.tid() + "/" + report.javaId();
    }

    /**
     * The record in a parsed JSON object ({@link JsonReader}) whose {@code type} is sample or thread.
     *
     * @throws IllegalArgumentException naming the field that is missing or of the wrong kind
     */
    public static ThreadRecord fromJson(Map<?, ?> object) {
        String type = JsonFields.field(object, "type", String.class);
        if (!type.equals(ThreadRecords.SAMPLE) && !type.equals(ThreadRecords.THREAD)) {
            throw new IllegalArgumentException(
                    "field 'type' is '" + type + "', expected " + ThreadRecords.SAMPLE + " or " + ThreadRecords.THREAD);
        }
        long tid = JsonFields.field(object, "tid", Long.class);
        boolean virtual = Boolean.TRUE.equals(object.get("virtual"));
        if ((tid < 0 && !(virtual && tid == ThreadRecords.VIRTUAL_TID)) || tid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("field 'tid' is " + tid + ", not a thread id");
        }
        ThreadReport report = ThreadReport.fromValues(
                JsonFields.field(object, "name", String.class),
                (int) tid,
                JsonFields.field(object, "javaId", Long.class),
                JsonFields.field(object, "cpus", String.class),
                JsonFields.field(object, "wallNanos", Long.class),
                JsonFields.map(object, "counters", JsonFields::wholeNumber, "whole numbers"),
                JsonFields.map(object, "coverage", JsonFields::number, JsonFields.NUMBERS),
                JsonFields.map(object, "metrics", JsonFields::number, JsonFields.NUMBERS),
                JsonFields.map(object, "unsupported", JsonFields::string, "strings"));
        // Recordings made before perfpin wrote "pin" have none: nothing then says perfpin pinned the thread.
        Object pin = object.get("pin");
        if (pin != null) {
            report = report.withPin(PinSource.of(JsonFields.field(object, "pin", String.class)));
        }
        // A record without "source" has every value from perf_event_open.
        if (object.get("source") != null) {
            report = report.withSources(JsonFields.map(object, "source", JsonFields::string, "strings"));
        }
        if (object.get("state") != null) {
            report = report.withState(ThreadState.of(JsonFields.field(object, "state", String.class)));
        }
        String pmu = JsonFields.pmu(object);
        if (pmu != null) {
            report = report.withPmu(pmu);
        }
        report = report.withNameCut(Boolean.TRUE.equals(object.get("nameCut")));
        return new ThreadRecord(type, JsonFields.field(object, "time", Long.class), report);
    }
}
