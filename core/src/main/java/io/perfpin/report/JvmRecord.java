package io.perfpin.report;

import java.nio.file.Path;
import java.util.Map;

/**
 * The first record of a recording that an agent writes ({@code "type":"jvm"}): the JVM that wrote it, when its
 * agent started, and the file its options named ({@code out=}; field {@code named}). That is the file itself, or,
 * for a JVM whose named file another JVM was writing (one started by it with the same options, as JMH starts its
 * forks), the file beside which this one lies ({@link RecordingFile}). {@code pmu}: the simulated PMU that makes its
 * hardware counts, in tests only; null (and no field) where the processor does.
 */
public record JvmRecord(long pid, long epochMillis, Path named, String pmu) {
    public static final String TYPE = "jvm";

    public JvmRecord(long pid, long epochMillis, Path named) {
        this(pid, epochMillis, named, null);
    }

    /**
     * The field naming the file its options named. It was {@code recording} before, the name of the field a report
     * that joins recordings gives each record for the file it was read from: read under either, written as this.
     */
    static final String NAMED = "named";

    private static final String NAMED_BEFORE = "recording";

    public String toJson() {
        return toJson(null);
    }

    /** @param recording the file the record was read from, where a report joins several; null for none */
    public String toJson(Path recording) {
        Json json = Json.object().field("type", TYPE);
        if (recording != null) {
            json.field("recording", recording.toString());
        }
        json.field("time", epochMillis).field("pid", pid).field(NAMED, named.toString());
        if (pmu != null) {
            json.field("pmu", pmu);
        }
        return json.end();
    }

    /** @throws IllegalArgumentException naming the field that is missing or of the wrong kind */
    static JvmRecord fromJson(Map<?, ?> object) {
        String named = object.containsKey(NAMED) || !object.containsKey(NAMED_BEFORE) ? NAMED : NAMED_BEFORE;
        return new JvmRecord(
                JsonFields.field(object, "pid", Long.class),
                JsonFields.field(object, "time", Long.class),
                Path.of(JsonFields.field(object, named, String.class)),
                object.get("pmu") == null ? null : JsonFields.field(object, "pmu", String.class));
    }

    static boolean isJvmType(Object type) {
        return TYPE.equals(type);
    }
}
