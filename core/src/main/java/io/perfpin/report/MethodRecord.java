package io.perfpin.report;

import java.nio.file.Path;
import java.util.Map;

/**
 * A {@code @Counted} method's summary in a JSON-lines recording: {@code type} {@code "method"} once at the
 * end, {@code "method-sample"} while it runs (cumulative, written when calls were added), each with the
 * method's name, its calls, and per counted event the total, the mean per call, p50 and p99, and the events
 * that could not be counted with their reasons, and {@code pmu} where a simulated PMU made its hardware counts (tests
 * only; absent otherwise), as a thread's record has it. A report that joins several recordings adds
 * {@code recording}, the file the record was read from, after {@code type}.
 *
 * @param pmu the simulated PMU ({@code simulated skylake}); null: the kernel's
 */
public record MethodRecord(
        String type,
        long epochMillis,
        String method,
        long calls,
        Map<String, Long> totals,
        Map<String, Double> means,
        Map<String, Long> p50,
        Map<String, Long> p99,
        Map<String, String> unsupported,
        String pmu) {
    public static final String FINAL = "method";
    public static final String SAMPLE = "method-sample";

    public boolean isFinal() {
        return FINAL.equals(type);
    }

    public static boolean isMethodType(Object type) {
        return FINAL.equals(type) || SAMPLE.equals(type);
    }

    public String toJson() {
        return toJson(null);
    }

    /** @param recording the file the record was read from, where a report joins several; null for none */
    public String toJson(Path recording) {
        Json json = Json.object().field("type", type);
        if (recording != null) {
            json.field("recording", recording.toString());
        }
        json.field("time", epochMillis)
                .field("method", method)
                .field("calls", calls)
                .field("counters", totals)
                .field("mean", means)
                .field("p50", p50)
                .field("p99", p99)
                .field("unsupported", unsupported);
        if (pmu != null) {
            json.field("pmu", pmu);
        }
        return json.end();
    }

    /** @throws IllegalArgumentException naming the field that is missing or of the wrong kind */
    public static MethodRecord fromJson(Map<?, ?> object) {
        return new MethodRecord(
                JsonFields.field(object, "type", String.class),
                JsonFields.field(object, "time", Long.class),
                JsonFields.field(object, "method", String.class),
                JsonFields.field(object, "calls", Long.class),
                JsonFields.map(object, "counters", JsonFields::wholeNumber, "whole numbers"),
                JsonFields.map(object, "mean", JsonFields::number, JsonFields.NUMBERS),
                JsonFields.map(object, "p50", JsonFields::wholeNumber, "whole numbers"),
                JsonFields.map(object, "p99", JsonFields::wholeNumber, "whole numbers"),
                JsonFields.map(object, "unsupported", JsonFields::string, "strings"),
                JsonFields.pmu(object));
    }
}
