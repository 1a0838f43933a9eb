package io.perfpin.report;

import io.perfpin.stats.StatsLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Typed fields of a parsed JSON record ({@link JsonReader}), each failure naming the field. */
final class JsonFields {
    static final String NUMBERS = "numbers";

    private JsonFields() {}

    static <T> T field(Map<?, ?> object, String key, Class<T> kind) {
        Object value = object.get(key);
        if (!kind.isInstance(value)) {
            throw new IllegalArgumentException(
                    value == null && !object.containsKey(key)
                            ? "no field '" + key + "'"
                            : "field '" + key + "' is not " + (kind == String.class ? "a string" : "a whole number"));
        }
        return kind.cast(value);
    }

    /**
     * The simulated PMU a record names, or null where it names none: checked as a stats file's is ({@link
     * StatsLayout#PMU_MODEL}), since a viewer prints it in its heading, and a recording is the target's to write.
     */
    static String pmu(Map<?, ?> object) {
        if (object.get("pmu") == null) {
            return null;
        }
        String pmu = field(object, "pmu", String.class);
        if (!StatsLayout.namesSimulatedPmu(pmu)) {
            throw new IllegalArgumentException("field 'pmu' names no simulated PMU ('simulated MODEL')");
        }
        return pmu;
    }

    /** {@link Json} writes a value that could not be computed (NaN) as null: in a map of numbers it is left out. */
    static <V> Map<String, V> map(Map<?, ?> object, String key, Function<Object, V> convert, String kind) {
        Object value = object.get(key);
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException(
                    value == null ? "no field '" + key + "'" : "field '" + key + "' is not an object");
        }
        Map<String, V> result = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
            if (e.getValue() == null && kind.equals(NUMBERS)) {
                continue;
            }
            V converted = convert.apply(e.getValue());
            if (converted == null) {
                throw new IllegalArgumentException(
                        "field '" + key + "' holds '" + e.getKey() + "': " + e.getValue() + ", expected " + kind);
            }
            result.put((String) e.getKey(), converted);
        }
        return result;
    }

    /** An array of strings, in its order. */
    static List<String> strings(Map<?, ?> object, String key) {
        Object value = object.get(key);
        if (!(value instanceof List)) {
            throw new IllegalArgumentException(
                    value == null ? "no field '" + key + "'" : "field '" + key + "' is not an array");
        }
        List<String> result = new ArrayList<>();
        for (Object item : (List<?>) value) {
            if (!(item instanceof String)) {
                throw new IllegalArgumentException("field '" + key + "' holds " + item + ", expected strings");
            }
            result.add((String) item);
        }
        return result;
    }

    static Double number(Object value) {
        return value instanceof Number ? ((Number) value).doubleValue() : null;
    }

    static Long wholeNumber(Object value) {
        return value instanceof Long ? (Long) value : null;
    }

    static String string(Object value) {
        return value instanceof String ? (String) value : null;
    }
}
