package io.perfpin.event;

import io.perfpin.nativeio.PmuModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One PMU the kernel publishes under {@code /sys/bus/event_source/devices/<name>}: its perf type number, the
 * terms it takes ({@code format/}) and its named events ({@code events/}, each a term list itself).
 */
final class SysfsPmu {
    static final String DEVICES = "sys/bus/event_source/devices";

    // Siblings of a named event that describe how perf prints it, not events of their own.
    private static final List<String> EVENT_ATTRIBUTE_SUFFIXES = List.of(".scale", ".unit", ".per-pkg", ".snapshot");

    private final String name;
    private final int type;
    private final Map<String, String> formats;
    private final Map<String, String> events;

    private SysfsPmu(String name, int type, Map<String, String> formats, Map<String, String> events) {
        this.name = name;
        this.type = type;
        this.formats = formats;
        this.events = events;
    }

    /** Names of the PMUs under a root (a fixture tree, or {@code /}), sorted; empty when it has none. */
    static List<String> names(Path root) {
        Path devices = root.resolve(DEVICES);
        List<String> names = new ArrayList<>();
        if (Files.isDirectory(devices)) {
            try (Stream<Path> list = Files.list(devices)) {
                list.filter(p -> Files.isRegularFile(p.resolve("type")))
                        .forEach(p -> names.add(p.getFileName().toString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        names.sort(null);
        return names;
    }

    static Optional<SysfsPmu> load(Path root, String name) {
        if (name.isEmpty() || name.contains("/") || name.startsWith(".")) {
            return Optional.empty();
        }
        Path dir = root.resolve(DEVICES).resolve(name);
        Path typeFile = dir.resolve("type");
        if (!Files.isRegularFile(typeFile)) {
            return Optional.empty();
        }
        int type = Integer.parseInt(read(typeFile));
        Map<String, String> events = readAll(dir.resolve("events"));
        events.keySet().removeIf(event -> EVENT_ATTRIBUTE_SUFFIXES.stream().anyMatch(event::endsWith));
        return Optional.of(new SysfsPmu(name, type, readAll(dir.resolve("format")), events));
    }

    /**
     * The {@code cpu} PMU of a simulated model, which no sysfs holds: its type and format terms as the simulated
     * core's kernel would publish them, and no named events.
     */
    static SysfsPmu simulated(PmuModel model) {
        return new SysfsPmu(PmuModel.CPU_PMU, model.cpuPmuType(), new TreeMap<>(model.cpuPmuFormats()), Map.of());
    }

    String name() {
        return name;
    }

    int type() {
        return type;
    }

    /** Term name to format text, e.g. {@code umask -> config:8-15}. */
    Map<String, String> formats() {
        return formats;
    }

    /** Named event to its term list, e.g. {@code cpu-cycles -> event=0x3c}. */
    Map<String, String> events() {
        return events;
    }

    PmuFormat format(String term) {
        return PmuFormat.parse("PMU " + name, term, formats.get(term));
    }

    /**
     * Encodes a term list, the part between the slashes of {@code cpu/event=0x3c,cmask=1/}, into config, config1
     * and config2. A bare term is 1, or one of this PMU's named events; {@code config}, {@code config1} and
     * {@code config2} set a whole word, as in perf.
     */
    long[] encode(String terms, String token) {
        long[] words = new long[PmuFormat.WORDS.size()];
        apply(terms, words, token, true);
        return words;
    }

    private void apply(String termList, long[] words, String token, boolean namedEventsAllowed) {
        for (String term : termList.split(",", -1)) {
            String t = term.trim();
            int eq = t.indexOf('=');
            String key = (eq < 0 ? t : t.substring(0, eq)).trim();
            if (key.isEmpty()) {
                throw new InvalidEventException("empty term in '" + token + "': expected name=value or name");
            }
            if (eq < 0 && namedEventsAllowed && events.containsKey(key) && !formats.containsKey(key)) {
                apply(events.get(key), words, token, false);
                continue;
            }
            long value = eq < 0 ? 1 : parseValue(t.substring(eq + 1).trim(), key, token);
            int word = PmuFormat.WORDS.indexOf(key);
            if (word >= 0) {
                words[word] = value;
            } else if (formats.containsKey(key)) {
                format(key).write(value, words, token);
            } else {
                List<String> terms = new ArrayList<>(PmuFormat.WORDS);
                terms.addAll(formats.keySet());
                List<String> known = new ArrayList<>(terms);
                known.addAll(events.keySet());
                String named = events.isEmpty() ? "" : " or one of its " + events.size() + " named events";
                throw new UnknownEventException(
                        "term",
                        key,
                        "in '" + token + "'; " + name + " takes " + String.join(", ", terms) + named,
                        NearestNames.nearest(key, known));
            }
        }
    }

    private static long parseValue(String text, String term, String token) {
        try {
            if (text.startsWith("0x") || text.startsWith("0X")) {
                return Long.parseUnsignedLong(text.substring(2), 16);
            }
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new InvalidEventException("value '" + text + "' of term '" + term + "' in '" + token
                    + "' is not a number: expected decimal or 0x hex below 2^64");
        }
    }

    private static Map<String, String> readAll(Path dir) {
        Map<String, String> entries = new TreeMap<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> list = Files.list(dir)) {
                list.filter(Files::isRegularFile)
                        .forEach(p -> entries.put(p.getFileName().toString(), read(p)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return entries;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
