package io.perfpin.report;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * One JSON-lines record of a thread ({@link ThreadRecords}), read back: its type ({@link ThreadRecords#SAMPLE}
 * or {@link ThreadRecords#THREAD}), when it was written, and the thread's values.
 *
 * @param epochMillis when the record was written
 */
public record ThreadRecord(String type, long epochMillis, ThreadReport report) {
    private static final String NUMBERS = "numbers";

    /** Whether this is a thread's final summary rather than a live sample. */
    public boolean isFinal() {
        return ThreadRecords.THREAD.equals(type);
    }

    /**
     * The record in a parsed JSON object ({@link JsonReader}) whose {@code type} is sample or thread.
     *
     * @throws IllegalArgumentException naming the field that is missing or of the wrong kind
     */
    public static ThreadRecord fromJson(Map<?, ?> object) {
        String type = field(object, "type", String.class);
        if (!type.equals(ThreadRecords.SAMPLE) && !type.equals(ThreadRecords.THREAD)) {
            throw new IllegalArgumentException("field 'type' is '" + type + "', expected "
                    + ThreadRecords.SAMPLE + " or " + ThreadRecords.THREAD);
        }
        long tid = field(object, "tid", Long.class);
        if (tid < 0 || tid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("field 'tid' is " + tid + ", not a thread id");
        }
        ThreadReport report = ThreadReport.fromValues(field(object, "name", String.class), (int) tid,
                field(object, "javaId", Long.class), field(object, "cpus", String.class),
                field(object, "wallNanos", Long.class),
                map(object, "counters", v -> v instanceof Long ? (Long) v : null, "whole numbers"),
                map(object, "coverage", ThreadRecord::number, NUMBERS),
                map(object, "metrics", ThreadRecord::number, NUMBERS),
                map(object, "unsupported", v -> v instanceof String ? (String) v : null, "strings"));
        return new ThreadRecord(type, field(object, "time", Long.class), report);
    }

    private static <T> T field(Map<?, ?> object, String key, Class<T> kind) {
        Object value = object.get(key);
        if (!kind.isInstance(value)) {
            throw new IllegalArgumentException(value == null && !object.containsKey(key) ? "no field '" + key + "'"
                    : "field '" + key + "' is not " + (kind == String.class ? "a string" : "a whole number"));
        }
        return kind.cast(value);
    }

    /** {@link Json} writes a value that could not be computed (NaN) as null: in a map of numbers it is left out. */
    private static <V> Map<String, V> map(Map<?, ?> object, String key, Function<Object, V> convert, String kind) {
        Object value = object.get(key);
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException(value == null ? "no field '" + key + "'"
                    : "field '" + key + "' is not an object");
        }
        Map<String, V> result = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
            if (e.getValue() == null && kind.equals(NUMBERS)) {
                continue;
            }
            V converted = convert.apply(e.getValue());
            if (converted == null) {
                throw new IllegalArgumentException("field '" + key + "' holds '" + e.getKey() + "': " + e.getValue()
                        + ", expected " + kind);
            }
            result.put((String) e.getKey(), converted);
        }
        return result;
    }

    private static Double number(Object value) {
        return value instanceof Number ? ((Number) value).doubleValue() : null;
    }
}
