package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Dumps with names made to be costly, as any code in the JVM can name its threads: each is read in one pass over its
 * text, with the names it holds whole and the threads around them intact. The scan before this one read a name of
 * thousands of lines again for each of its lines, and tried each of its quotes as the name's end: minutes for these.
 */
class ThreadDumpLongNamesTest {
    private static final String MAIN = entry("main", 1, 0x11);
    private static final String AFTER = entry("after", 21, 0x13);

    /** Eight thousand lines, each a quote and a space: a dump of 24 KB that took the former scan a minute. */
    @Test
    void aNameOfThousandsOfQuotedLinesIsReadWhole() {
        String name = "x" + "\n\" ".repeat(8000);

        ThreadDump dump = ThreadDump.parse(MAIN + entry(name, 20, 0x12) + AFTER);

        assertEquals(List.of("main", name, "after"), names(dump));
        assertEquals(0x12, dump.javaThreads().get(1).tid());
        assertEquals(0, dump.overlong());
    }

    /**
     * A line of a name with thousands of quotes that a header's rest, up to its {@code tid=}, follows, above a line
     * that a header's end would be followed by: each quote is tried as the name's end, the tokens after it read once.
     */
    @Test
    void aLineOfManyQuotesThatNeverEndAHeaderIsReadOnce() {
        String name = "y\n" + "\" os_prio=0 tid=0xg ".repeat(3000) + "\n z";

        ThreadDump dump = ThreadDump.parse(MAIN + entry(name, 20, 0x12) + AFTER);

        assertEquals(List.of("main", name, "after"), names(dump));
    }

    /** Two hundred thousand lines of a lone quote, the dump's last, which no line below ends: none is an entry. */
    @Test
    void linesOfLoneQuotesThatNothingEndsAreNoEntries() {
        ThreadDump dump = ThreadDump.parse(MAIN + AFTER + "\"\n".repeat(200_000));

        assertEquals(List.of("main", "after"), names(dump));
    }

    /** An entry past 64 KiB is left out whole, and counted; the threads before and after it are read. */
    @Test
    void anEntryLongerThanItsLimitIsLeftOutAndCounted() {
        String name = "z" + "\n\" ".repeat(ThreadDump.MAX_ENTRY_CHARS / 3);

        ThreadDump dump = ThreadDump.parse(MAIN + entry(name, 20, 0x12) + AFTER);

        assertEquals(List.of("main", "after"), names(dump));
        assertEquals(1, dump.overlong());
    }

    /** A JDK 17 entry: its header, its state, a frame, the blank line after it. */
    private static String entry(String name, long javaId, int nid) {
        return "\"" + name + "\" #" + javaId + " daemon prio=5 os_prio=0 cpu=0.12ms elapsed=1.20s"
                + " tid=0x00007f0000001000 nid=0x" + Integer.toHexString(nid) + " waiting on condition"
                + "  [0x00007f0000002000]\n"
                + "   java.lang.Thread.State: TIMED_WAITING (sleeping)\n"
                + "\tat java.lang.Thread.sleep(java.base@17.0.15/Native Method)\n\n";
    }

    private static List<String> names(ThreadDump dump) {
        return dump.javaThreads().stream().map(JavaThreadInfo::name).toList();
    }
}
