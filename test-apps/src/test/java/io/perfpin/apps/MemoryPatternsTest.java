package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class MemoryPatternsTest {
    private static final int WORDS_IN_ONE_MIB = 131_072;

    @ParameterizedTest(name = "annotated={0}")
    @ValueSource(booleans = {false, true})
    void everyPatternReadsEachWordOncePerPass(boolean annotated) throws InterruptedException {
        MemoryPatterns.Result result = MemoryPatterns.run(new MemoryPatterns.Options(1, 2, annotated));
        long n = WORDS_IN_ONE_MIB;
        assertEquals(3, result.walks().size());
        result.walks().forEach((pattern, walk) -> {
            assertEquals(2 * n, walk.accesses(), pattern.label());
            assertEquals(2 * (n * (n - 1) / 2), walk.sum(), pattern.label());
        });
    }

    /** The sum of the values and of their squares: a walk that skipped or repeated words would miss both. */
    @ParameterizedTest
    @EnumSource(MemoryPatterns.Pattern.class)
    void walkIsAPermutation(MemoryPatterns.Pattern pattern) {
        int words = 8 * MemoryPatterns.WORDS_PER_PAGE;
        long[] squares = new long[words];
        for (int i = 0; i < words; i++) {
            squares[i] = (long) i * i;
        }
        long n = words;
        assertEquals((n - 1) * n * (2 * n - 1) / 6, MemoryPatterns.walk(squares, words, pattern));
    }
}
