package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThreadPatternsTest {
    /** A hang guard only: java.util.regex took 41 s over this on this machine. */
    private static final Duration HANG = Duration.ofSeconds(30);

    @Test
    void aRuleMatchesWholeNamesAndKeepsItsText() {
        ThreadPattern rule = ThreadPatterns.compile("thread regex", "io-\\d+", "io-\\d+");
        assertTrue(rule.matches("io-12"));
        assertFalse(rule.matches("io-12x"), "the whole name must match");
        assertFalse(rule.matches("my-io-12"));
        assertEquals("io-\\d+", rule.toString());
        assertTrue(ThreadPatterns.compile("thread regex", "w", "(?i)worker-[0-9]{1,3}|\\p{L}+")
                .matches("WORKER-7"));
    }

    @Test
    void aRuleBlindToDigitSuffixesAnswersAlikeForNamesThatDifferInTheirDigitsOnly() {
        for (String regex : List.of("churn-.*", "worker-\\d+", "pool|io-.+", "a*b?[0-9]*", "x", "(?i)Main")) {
            ThreadPattern rule = ThreadPatterns.compile("threads option", regex, regex);
            assertTrue(rule.blindToDigitSuffix(), regex);
            for (String stem : List.of("", "churn-", "churn-a", "worker-", "io-", "pool", "ab", "x", "main")) {
                boolean first = rule.matches(stem + "0");
                for (String digits : List.of("1", "7", "12", "000", "123456789")) {
                    assertEquals(first, rule.matches(stem + digits), regex + " on " + stem + digits);
                }
            }
        }
        // each tells some numbered names from others, or might: x1 from x2, io-1 from io-3, n7 from n77
        for (String regex : List.of("x1.*", "io-[12]", "a.c.*", "w-\\d", "n\\w", "t-\\d{2}", "(a.*)")) {
            assertFalse(ThreadPatterns.compile("threads option", regex, regex).blindToDigitSuffix(), regex);
        }
    }

    @Test
    void aBacktrackingBombIsMatchedInLinearTime() {
        ThreadPattern bomb = ThreadPatterns.compile("threads option", "threads=(.*a){20}", "(.*a){20}");
        String name = "a".repeat(30) + "b";
        assertEquals(31, name.length());
        assertFalse(assertTimeoutPreemptively(HANG, () -> bomb.matches(name)));
        assertTrue(bomb.matches("a".repeat(20)));
        assertFalse(assertTimeoutPreemptively(
                HANG, () -> ThreadPatterns.compile("r", "(a|aa)*c", "(a|aa)*c").matches("a".repeat(5000))));
    }

    @Test
    void theServiceThreadsAreTheJvmsOwn() {
        assertTrue(ThreadPatterns.isServiceThread("C2 CompilerThread0"));
        assertTrue(ThreadPatterns.isServiceThread("C1 CompilerThread12"));
        assertTrue(ThreadPatterns.isServiceThread("perfpin-sampler"));
        assertTrue(ThreadPatterns.isServiceThread("Common-Cleaner"));
        assertFalse(ThreadPatterns.isServiceThread("main"));
        assertFalse(ThreadPatterns.isServiceThread("C2 CompilerThread"));
        assertFalse(ThreadPatterns.isServiceThread("C2 CompilerThread0x"));
        assertFalse(ThreadPatterns.isServiceThread("Finalizer-2"));
    }

    @Test
    void javaSyntaxThatRe2LacksIsSaidSo() {
        for (String regex : new String[] {"(a)\\1", "(?=a)a", "(?<!x)a", "a*+"}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> ThreadPatterns.compile("thread regex", regex, regex));
            assertTrue(
                    e.getMessage().startsWith("bad thread regex '" + regex + "': not a regular expression ("),
                    e.getMessage());
            assertTrue(
                    e.getMessage().contains("without backreferences, lookaround or possessive quantifiers"),
                    e.getMessage());
        }
        IllegalArgumentException unclosed = assertThrows(
                IllegalArgumentException.class, () -> ThreadPatterns.compile("thread regex", "io-(", "io-("));
        assertEquals(
                "bad thread regex 'io-(': not a regular expression (missing closing ): `io-(`)", unclosed.getMessage());
    }

    @Test
    void nestedCountsThatWouldFillTheHeapAreRefusedBeforeCompiling() {
        for (String regex : new String[] {"((a{1000}){1000}){1000}", "(x{100}){101}", "([ab]{999}|c){999}"}) {
            IllegalArgumentException e = assertTimeoutPreemptively(
                    HANG,
                    () -> assertThrows(
                            IllegalArgumentException.class, () -> ThreadPatterns.compile("pin rule", regex, regex)));
            assertTrue(
                    e.getMessage()
                            .startsWith("bad pin rule '" + regex + "': too large once its counted"
                                    + " repetitions are written out ("),
                    e.getMessage());
            assertTrue(e.getMessage().endsWith("; at most 10000)"), e.getMessage());
        }
        assertTrue(ThreadPatterns.compile("r", "r", "x{1000}[0-9]{1000}(ab){2,}")
                .matches("x".repeat(1000) + "7".repeat(1000) + "abab"));
    }

    @Test
    void anOverlongRegexIsRefusedNamingItsStart() {
        String regex = "a".repeat(OptionLimits.MAX_VALUE_CHARS + 1);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ThreadPatterns.compile("threads option", "threads=" + regex, regex));
        assertEquals(
                "bad threads option 'threads=" + "a".repeat(32) + "... (4105 characters)': too long (4097"
                        + " characters; at most 4096)",
                e.getMessage());
    }
}
