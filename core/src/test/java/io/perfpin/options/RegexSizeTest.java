package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RegexSizeTest {
    @Test
    void countsMultiplyWhatTheyRepeatAndNestedCountsMultiplyAgain() {
        assertEquals(3, RegexSize.of("abc"));
        assertEquals(1000, RegexSize.of("a{1000}"));
        assertEquals(1001, RegexSize.of("a{1000,}"));
        assertEquals(1000, RegexSize.of("a{2,1000}"));
        assertEquals((1000 + 1) * 1000, RegexSize.of("(a{1000}){1000}"));
        assertEquals(1, RegexSize.of("[(){1000}]"), "nothing inside a class groups or repeats");
        assertEquals(6, RegexSize.of("\\Q(a){9}\\E"), "nor inside \\Q...\\E");
        assertEquals(2, RegexSize.of("\\p{Greek}{2}"));
        assertEquals(5, RegexSize.of("a{,3}"), "not a count in RE2: five literals");
    }

    /**
     * Regexes built at random from the constructs that grow a program (groups, alternation, counts, classes,
     * escapes): whenever RE2/J compiles one, its program is within a small factor of the estimate, so no regex
     * that passes the bound compiles into much more.
     */
    @Test
    void theEstimateBoundsTheCompiledProgramOfRandomRegexes() {
        Random random = new Random(20240601);
        int compiled = 0;
        for (int i = 0; i < 2000; i++) {
            String regex = regex(random, 0);
            long estimate = RegexSize.of(regex);
            if (estimate > ThreadPatterns.MAX_SIZE) {
                continue;
            }
            Pattern pattern;
            try {
                pattern = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                continue;
            }
            compiled++;
            assertTrue(
                    pattern.programSize() <= 4 * estimate + 16,
                    regex + ": estimate " + estimate + ", program " + pattern.programSize());
        }
        assertTrue(compiled > 500, compiled + " of 2000 compiled");
    }

    private static String regex(Random random, int depth) {
        StringBuilder regex = new StringBuilder();
        int parts = 1 + random.nextInt(4);
        for (int p = 0; p < parts; p++) {
            switch (random.nextInt(depth < 4 ? 9 : 6)) {
                case 0 -> regex.append("[a-c(){}]");
                case 1 -> regex.append("\\d");
                case 2 -> regex.append('.');
                case 3 -> regex.append("\\Q(x)\\E");
                case 4 -> regex.append("[[:alpha:]]");
                case 5 -> regex.append((char) ('a' + random.nextInt(3)));
                case 6 -> regex.append('(').append(regex(random, depth + 1)).append(')');
                case 7 ->
                    regex.append("(?:")
                            .append(regex(random, depth + 1))
                            .append('|')
                            .append(regex(random, depth + 1))
                            .append(')');
                default -> regex.append("(?i:").append(regex(random, depth + 1)).append(')');
            }
            switch (random.nextInt(6)) {
                case 0 -> regex.append('{').append(random.nextInt(30)).append('}');
                case 1 ->
                    regex.append('{')
                            .append(random.nextInt(10))
                            .append(',')
                            .append(10 + random.nextInt(30))
                            .append('}');
                case 2 -> regex.append('{').append(random.nextInt(20)).append(",}");
                case 3 -> regex.append(random.nextBoolean() ? "*" : "+?");
                default -> {}
            }
        }
        return regex.toString();
    }
}
