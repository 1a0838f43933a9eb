package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.testkit.Threads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ThreadStartTimeTest {
    /** A line of this machine's kernel, for a thread named ") x (y"; field 22 is 287273. */
    private static final String STAT = "29759 () x (y) R 29754 29754 1493 0 -1 4194304 128 0 0 0 0 0 0 0 20 0 1 0"
            + " 287273 3133440 393 18446744073709551615 94739694907392 94739694927273 140728897416016 0 0 0 0 0 0 0"
            + " 0 0 17 1 0 0 0 0 0 94739694943792 94739694945408 94739711057920 140728897418683 140728897418703"
            + " 140728897418703 140728897421291 0";

    @Test
    void theStartTimeFieldAfterACommandWithParentheses() {
        assertEquals(OptionalLong.of(287273), ThreadStartTime.parse(STAT));
        assertEquals(OptionalLong.empty(), ThreadStartTime.parse("1 (x) R 2 3"));
    }

    @Test
    void aThreadKeepsItsStartTimeAndOneStartedLaterHasNoEarlierOne() throws Exception {
        long pid = ProcessHandle.current().pid();
        int self = ownTid();
        OptionalLong mine = ThreadStartTime.of(pid, self);
        assertTrue(mine.isPresent());
        assertEquals(mine, ThreadStartTime.of(pid, self));

        AtomicLong laterStart = new AtomicLong(-1);
        Thread later = new Thread(
                () -> laterStart.set(ThreadStartTime.of(pid, ownTid()).orElse(-1)), "later");
        later.start();
        Threads.join(later);
        assertTrue(laterStart.get() >= mine.getAsLong(), laterStart + " < " + mine);
        assertEquals(OptionalLong.empty(), ThreadStartTime.of(pid, Integer.MAX_VALUE));
    }

    private static int ownTid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Paths.get("/proc/thread-self"))
                    .getFileName()
                    .toString());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
