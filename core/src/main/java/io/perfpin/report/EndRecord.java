package io.perfpin.report;

import java.util.Map;

/**
 * The last record of a recording that an agent writes ({@code "type":"end"}): whether the recording holds all it
 * was to hold ({@code "complete"}) and, when not, why ({@code "reason"}). A recording stops early when a write to it
 * fails (a full disk, a file-size limit): it is then ended at once with {@code "complete":false}, at the cost of its
 * last records when the file had no room left for this one, and counting goes on unrecorded. A recording without
 * this record was not closed: its JVM still runs or died, or it was made by {@code stat} or an older agent.
 *
 * @param reason null when complete
 */
public record EndRecord(long epochMillis, boolean complete, String reason) {
    public static final String TYPE = "end";

    public static EndRecord complete(long epochMillis) {
        return new EndRecord(epochMillis, true, null);
    }

    public static EndRecord incomplete(long epochMillis, String reason) {
        return new EndRecord(epochMillis, false, reason);
    }

    public String toJson() {
        Json json = Json.object().field("type", TYPE).field("time", epochMillis).field("complete", complete);
        if (reason != null) {
            json.field("reason", reason);
        }
        return json.end();
    }

    /** @throws IllegalArgumentException naming the field that is missing or of the wrong kind */
    static EndRecord fromJson(Map<?, ?> object) {
        Object complete = object.get("complete");
        if (!(complete instanceof Boolean)) {
            throw new IllegalArgumentException(
                    complete == null ? "no field 'complete'" : "field 'complete' is not" + " true or false");
        }
        Object reason = object.get("reason");
        return new EndRecord(
                JsonFields.field(object, "time", Long.class),
                (Boolean) complete,
                reason == null ? null : JsonFields.field(object, "reason", String.class));
    }

    /** One line for a reader of the recording: null when it is complete. */
    public String incompleteLine() {
        return complete
                ? null
                : "the recording is incomplete: it stopped early, "
                        + (reason == null ? "for a reason it does not give" : reason);
    }
}
