package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.re2j.Pattern;
import io.perfpin.jvm.NastyTruth;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SimpleRegex} against RE2/J, its oracle: every pattern of literal alternatives and tails matches every name
 * as RE2/J's {@code matches} does. The names are those of real JVMs' threads, the fixtures' hostile ones included
 * (quotes, line feeds, carriage returns, tabs, other scripts), and made-up ones around each literal; and every
 * pattern that holds more than literals and tails is left to RE2/J.
 */
class SimpleRegexTest {
    private static final List<String> LITERALS = List.of(
            "",
            "worker-",
            "pool-1-thread-",
            "ping",
            "pong",
            "io",
            "a b",
            "tab\t",
            "nl\n",
            "é",
            "日本",
            "😀",
            "-",
            "#",
            "x,y",
            "line\nbreak");
    private static final List<String> TAILS = List.of("", ".*", ".+", "\\d*", "\\d+", "[0-9]*", "[0-9]+");
    private static final List<String> SUFFIXES =
            List.of("", "1", "12", "007", "x", "\n", "1\n", "\n1", "٣", "😀", " ", "\r", "1x", ".", "\uD800");

    @Test
    void matchesEveryNameAsRe2Does() throws IOException {
        List<String> names = names();
        int checked = 0;
        for (String pattern : patterns()) {
            SimpleRegex simple = SimpleRegex.of(pattern);
            assertNotNull(simple, () -> "literal alternatives: " + escaped(pattern));
            Pattern oracle = Pattern.compile(pattern);
            for (String name : names) {
                assertEquals(
                        oracle.matches(name), simple.matches(name), () -> escaped(pattern) + " on " + escaped(name));
                checked++;
            }
        }
        assertEquals(true, checked > 100_000, "pairs checked: " + checked);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "a.b", "a\\d", "(a)", "a|b.*c", "[ab]", "a?", "a+", "a{2}", "^a", "a$", "\\.", "(?i)a", "a.**", ".*.*",
                "a]*", "\\d{3}", "a\\|b", "\\w+", "a*", "[^0-9]*", "[0-9]"
            })
    void anythingMoreIsLeftToRe2(String pattern) {
        assertNull(SimpleRegex.of(pattern), pattern);
    }

    /** Each literal with each tail, then alternatives of two and three of those, chosen by a fixed stride. */
    private static List<String> patterns() {
        List<String> single = new ArrayList<>();
        for (String literal : LITERALS) {
            for (String tail : TAILS) {
                single.add(literal + tail);
            }
        }
        List<String> all = new ArrayList<>(single);
        int n = single.size();
        for (int i = 0; i < n; i++) {
            all.add(single.get(i) + "|" + single.get((i * 7 + 3) % n));
            all.add(single.get(i) + "|" + single.get((i * 11 + 5) % n) + "|" + single.get((i * 13 + 1) % n));
        }
        return all;
    }

    /** The fixtures' thread names, and each literal, cut short and with each suffix. */
    private static List<String> names() throws IOException {
        Set<String> names = new LinkedHashSet<>();
        for (String jdk : List.of("jdk17", "jdk25")) {
            names.addAll(NastyTruth.fixture(jdk).names());
        }
        for (String literal : LITERALS) {
            for (String suffix : SUFFIXES) {
                names.add(literal + suffix);
                names.add(literal + suffix + suffix);
            }
            if (!literal.isEmpty()) {
                names.add(literal.substring(0, literal.length() - 1));
            }
        }
        return new ArrayList<>(names);
    }

    private static String escaped(String text) {
        return text.replace("\\", "\\\\")
                .replace("\n", "\\n")
                .replace("\r", "\\r")
                .replace("\t", "\\t");
    }
}
