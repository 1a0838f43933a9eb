package io.perfpin.agent.impl.jfr;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Java identifiers for the fields of one event type, made from perfpin's event and metric names, which JFR does
 * not take as they are ({@code task-clock}, {@code L1-dcache-load-misses}, {@code cpu/event=0x08,umask=0x0e/},
 * {@code 4k-alias-pki}): the name's letters and digits in lower camel case, {@code e} before a leading digit, and
 * a number after one already taken. The name itself goes into the field's label.
 */
final class FieldNames {
    /** The fields JFR gives every event. */
    private static final Set<String> IMPLICIT = Set.of("startTime", "duration", "eventThread", "stackTrace");

    private final Set<String> taken = new HashSet<>(IMPLICIT);

    /** Claims a fixed field's name. */
    String fixed(String name) {
        if (!taken.add(name)) {
            throw new IllegalArgumentException("field " + name + " is taken");
        }
        return name;
    }

    /** The identifier for {@code name} followed by {@code suffix} (empty, or a capitalised word), unique here. */
    String of(String name, String suffix) {
        StringBuilder id = new StringBuilder();
        for (String word : name.split("[^A-Za-z0-9]+")) {
            if (word.isEmpty()) {
                continue;
            }
            String w = word.equals(word.toUpperCase(Locale.ROOT)) ? word.toLowerCase(Locale.ROOT) : word;
            if (id.length() == 0) {
                id.append(
                        Character.isDigit(w.charAt(0)) ? "e" + w : Character.toLowerCase(w.charAt(0)) + w.substring(1));
            } else {
                id.append(Character.toUpperCase(w.charAt(0))).append(w, 1, w.length());
            }
        }
        if (id.length() == 0) {
            id.append("event");
        }
        id.append(suffix);
        String candidate = id.toString();
        for (int n = 2; !taken.add(candidate); n++) {
            candidate = id + "_" + n;
        }
        return candidate;
    }
}
