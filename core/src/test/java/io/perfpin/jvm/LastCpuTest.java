package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class LastCpuTest {
    /** A line of this machine's kernel, for a thread named ") x (y" to try the parser on parentheses. */
    private static final String STAT = "29759 () x (y) R 29754 29754 1493 0 -1 4194304 128 0 0 0 0 0 0 0 20 0 1 0"
            + " 287273 3133440 393 18446744073709551615 94739694907392 94739694927273 140728897416016 0 0 0 0 0 0 0"
            + " 0 0 17 1 0 0 0 0 0 94739694943792 94739694945408 94739711057920 140728897418683 140728897418703"
            + " 140728897418703 140728897421291 0";

    @Test
    void theProcessorFieldAfterACommandWithParentheses() {
        assertEquals(OptionalInt.of(1), LastCpu.parse(STAT));
        assertEquals(OptionalInt.empty(), LastCpu.parse("1 (cut"));
        assertEquals(OptionalInt.empty(), LastCpu.parse("1 (x) R 2 3"));
    }

    /** The command's fields come first: a field before the state would be one of the command's words. */
    @Test
    void onlyTheFieldsAfterTheCommandAreAsked() {
        assertEquals(Optional.of("R"), TaskStat.field(STAT, 3));
        assertThrows(IllegalArgumentException.class, () -> TaskStat.field(STAT, 2));
    }

    @Test
    void thisThreadRanOnACpuItMayUse() throws IOException {
        long pid = ProcessHandle.current().pid();
        int tid = Integer.parseInt(Files.readSymbolicLink(Paths.get("/proc/thread-self"))
                .getFileName()
                .toString());
        OptionalInt cpu = LastCpu.of(pid, tid);
        assertTrue(
                cpu.isPresent()
                        && cpu.getAsInt() >= 0
                        && cpu.getAsInt() < Runtime.getRuntime().availableProcessors() + 64,
                cpu.toString());
        assertEquals(OptionalInt.empty(), LastCpu.of(pid, Integer.MAX_VALUE));
    }
}
