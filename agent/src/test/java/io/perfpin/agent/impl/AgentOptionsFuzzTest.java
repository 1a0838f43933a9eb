package io.perfpin.agent.impl;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.perfpin.event.EventParser;
import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's option text, generated: tokens of its grammar with good and bad values, random characters
 * (controls, lone surrogates), huge numbers, regex bombs, very long strings. For each, the documented outcome:
 * it parses, and its rules then answer for any name, or it throws IllegalArgumentException whose message is one
 * line with no raw control character; never another exception, never a hang. The seed is fixed, so a failure
 * is the same on every run.
 */
class AgentOptionsFuzzTest {
    private static final EventParser PARSER = new EventParser();
    /** A hang guard only, per case: parsing and matching take milliseconds. */
    private static final Duration HANG = Duration.ofSeconds(30);

    private static final int CASES = 600;

    private static final String[] KEYS = {
        "threads",
        "count",
        "class",
        "pin",
        "inherit",
        "events",
        "interval",
        "out",
        "stats",
        "config",
        "detach",
        "THREADS",
        "bogus",
        "",
        " pin ",
        "pin\u0000",
        "interval\u001b"
    };
    private static final String[] REGEXES = {
        ".*",
        "io-\\d+",
        "(.*a){20}",
        "((a{1000}){1000}){1000}",
        "(a|aa)*b",
        "(a)\\1",
        "(?=x)x",
        "a*+",
        "(",
        "[z-a]",
        "\\p{L}+",
        "x{1001}",
        "(x{100}){100}",
        "[[:alpha:]]",
        "\\Q(\\E",
        "(?i)Worker-[0-9]{1,3}",
        "\u202eevil",
        "\t",
        "a{,3}",
        "((((((((((a))))))))))",
        "[^]]",
        "\\x{1F600}"
    };
    private static final String[] PLACEMENTS = {
        "0",
        "1",
        "0-1",
        "isolated",
        "core",
        "any",
        "cores",
        "-1",
        "1-0",
        "99999999999",
        "0-99999999999999999999",
        "0,,1",
        "2-3",
        "١",
        ""
    };
    private static final String[] EVENTS = {
        "sched",
        "ipc",
        "ipc:uk",
        "cycels",
        "task-clock,cs",
        "r1234",
        "rffffffffffffffffff",
        "cpu/event=0x3c/",
        "cpu/event=0xffffffffffffffffffffffff/",
        "cpu/",
        "../x/",
        ",",
        "software/",
        "sched,,ipc",
        "page-faults:zz",
        "\u0000/x/"
    };
    private static final String GRAMMAR = "=;@,/{}()[]*+?.\\aZ09-";
    private static final String[] DURATIONS = {
        "500ms",
        "1s",
        "0ms",
        "999999999999m",
        "525601m",
        "1.5s",
        "-1s",
        "9".repeat(40) + "ns",
        "5parsecs",
        "",
        "10us",
        "1m"
    };

    @TempDir
    Path dir;

    @Test
    void everyOptionTextParsesOrIsOneSafeLine() throws IOException {
        Random random = new Random(0x5eed);
        List<String> files = files();
        int parsed = 0;
        for (int i = 0; i < CASES; i++) {
            String text = optionText(random, files);
            String name = randomText(random, random.nextInt(40));
            if (assertTimeoutPreemptively(
                    HANG, () -> parses(text, name), () -> "hang on " + TerminalText.escape(text))) {
                parsed++;
            }
        }
        // Both outcomes are exercised, not one of them only.
        assertTrue(parsed >= CASES / 10 && parsed <= CASES * 9 / 10, parsed + " of " + CASES + " parsed");
    }

    /** Whether the text parsed, its rules then asked about a name; false for a refusal of the documented kind. */
    private static boolean parses(String text, String threadName) {
        AgentOptions options;
        try {
            options = AgentOptions.parse(text, PARSER);
        } catch (IllegalArgumentException e) {
            return false;
        } catch (RuntimeException | Error e) {
            return fail("not an IllegalArgumentException for " + TerminalText.escape(text) + ": " + e, e);
        }
        ThreadRules rules = options.rules();
        rules.enrols(threadName, Thread.class);
        rules.placementFor(threadName);
        rules.inheritsPin(threadName);
        return true;
    }

    /** Config files for config=: good, bad, empty, binary, and a regex bomb. */
    private List<String> files() throws IOException {
        List<String> files = new ArrayList<>(List.of(
                "/dev/zero",
                "/dev/null",
                "/proc/self/status",
                dir.toString(),
                dir.resolve("missing").toString()));
        String[] contents = {
            "threads=a;b\n# c\npin=x@0\n",
            "",
            "config=other\n",
            "threads=(.*a){20}\npin=(.*a){20}@1\n",
            "\u0000\u00ff\u001b[2J\n",
            "interval=999999999999m\n"
        };
        for (int i = 0; i < contents.length; i++) {
            Path file = dir.resolve(i + ".conf");
            Files.write(file, contents[i].getBytes(i == 4 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8));
            files.add(file.toString());
        }
        return files;
    }

    private static String optionText(Random random, List<String> files) {
        return switch (random.nextInt(10)) {
            case 0 -> randomText(random, random.nextInt(200));
            case 1 -> {
                // Past the bounds: the whole text, or one value.
                yield random.nextBoolean() ? "threads=" + "a".repeat(70_000) : "pin=" + "b".repeat(5000) + "@0";
            }
            case 2 ->
                "interval=" + digits(random, 1 + random.nextInt(60)) + pick(random, new String[] {"ns", "m", "s"});
            case 3 -> null;
            default -> {
                List<String> tokens = new ArrayList<>();
                int count = 1 + random.nextInt(6);
                for (int t = 0; t < count; t++) {
                    tokens.add(token(random, files));
                }
                yield String.join(random.nextInt(8) == 0 ? ";;" : ";", tokens);
            }
        };
    }

    private static String token(Random random, List<String> files) {
        String key = pick(random, KEYS);
        String value = switch (key.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "threads", "count", "class", "inherit" -> regex(random);
            case "pin" -> regex(random) + (random.nextInt(5) == 0 ? "" : "@") + pick(random, PLACEMENTS);
            case "events" -> pick(random, EVENTS);
            case "interval" -> pick(random, DURATIONS);
            case "config" ->
                random.nextInt(4) == 0 ? randomText(random, 10) : pick(random, files.toArray(new String[0]));
            case "out", "stats" -> random.nextBoolean() ? "off" : randomText(random, 12);
            default -> randomText(random, random.nextInt(20));
        };
        return random.nextInt(10) == 0 ? key : key + "=" + value;
    }

    private static String regex(Random random) {
        return random.nextInt(4) == 0 ? randomText(random, random.nextInt(30)) : pick(random, REGEXES);
    }

    /** Any UTF-16 unit: controls, DEL, C1, bidi controls, lone surrogates, and ordinary text between. */
    private static String randomText(Random random, int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            switch (random.nextInt(6)) {
                case 0 -> text.append((char) random.nextInt(0x20));
                case 1 -> text.append((char) (0x7f + random.nextInt(0x21)));
                case 2 -> text.append((char) (0xd800 + random.nextInt(0x800)));
                case 3 -> text.append((char) (0x2066 + random.nextInt(4)));
                case 4 -> text.append((char) random.nextInt(0x10000));
                default -> text.append(GRAMMAR.charAt(random.nextInt(GRAMMAR.length())));
            }
        }
        return text.toString();
    }

    private static String digits(Random random, int length) {
        StringBuilder digits = new StringBuilder();
        for (int i = 0; i < length; i++) {
            digits.append((char) ('0' + random.nextInt(10)));
        }
        return digits.toString();
    }

    private static String pick(Random random, String[] choices) {
        return choices[random.nextInt(choices.length)];
    }
}
