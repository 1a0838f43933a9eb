package io.perfpin.export;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ThreadGroupNameTest {
    @Test
    void aNumericSuffixAndTheSeparatorsBeforeItAreStripped() {
        assertEquals("pool-3-thread", ThreadGroupName.of("pool-3-thread-17"));
        assertEquals("ForkJoinPool.commonPool-worker", ThreadGroupName.of("ForkJoinPool.commonPool-worker-2"));
        assertEquals("C2 CompilerThread", ThreadGroupName.of("C2 CompilerThread0"));
        assertEquals("worker", ThreadGroupName.of("worker#12"));
        assertEquals("Thread", ThreadGroupName.of("Thread-0"));
        assertEquals("disruptor", ThreadGroupName.of("disruptor_1"));
    }

    @Test
    void aNameWithoutANumericSuffixIsItsOwnGroup() {
        assertEquals("main", ThreadGroupName.of("main"));
        assertEquals("pool-1-thread-x", ThreadGroupName.of("pool-1-thread-x"));
        assertEquals("worker-", ThreadGroupName.of("worker-"));
        assertEquals("", ThreadGroupName.of(""));
    }

    @Test
    void aNameOfDigitsAloneIsInOneGroup() {
        assertEquals(ThreadGroupName.NUMBERED, ThreadGroupName.of("12345"));
        assertEquals(ThreadGroupName.NUMBERED, ThreadGroupName.of("-7"));
    }

    @Test
    void aLongNameIsCutToTheLabelBound() {
        String name = "x".repeat(1000) + "-3";
        assertEquals("x".repeat(ThreadGroupName.MAX_CHARS), ThreadGroupName.of(name));
        assertEquals("y".repeat(ThreadGroupName.MAX_CHARS), ThreadGroupName.bounded("y".repeat(5000)));
    }
}
