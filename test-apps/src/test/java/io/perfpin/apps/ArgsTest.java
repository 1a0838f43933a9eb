package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ArgsTest {
    @Test
    void readsBothValueStylesFlagsAndDefaults() {
        Args args = Args.parse("--passes=3", "--n", "1_000", "--annotated");
        assertEquals(3, args.intValue("passes", 1, 1, 10));
        assertEquals(1000, args.intValue("n", 5, 1, 4096));
        assertEquals(7, args.intValue("absent", 7, 1, 10));
        assertTrue(args.flag("annotated", "annotated"));
        assertFalse(args.flag("quiet", "quiet"));
        args.rejectUnread();
    }

    @Test
    void flagTakesExplicitTrueOrFalse() {
        assertFalse(Args.parse("--annotated=false").flag("annotated", "annotated"));
        assertTrue(Args.parse("--annotated=true").flag("annotated", "annotated"));
        assertEquals(
                "bad --annotated 'maybe': expected nothing, true or false",
                rejected(() -> Args.parse("--annotated", "maybe").flag("annotated", "annotated")));
    }

    @Test
    void badValueNamesTheTokenAndTheRange() {
        assertEquals(
                "bad --passes 'lots': expected an integer from 1 to 10",
                rejected(() -> Args.parse("--passes=lots").intValue("passes", 1, 1, 10)));
        assertEquals(
                "bad --passes '11': expected an integer from 1 to 10",
                rejected(() -> Args.parse("--passes", "11").intValue("passes", 1, 1, 10)));
        assertEquals(
                "bad --step '12': expected an integer from 8 to 64, a multiple of 8",
                rejected(() -> Args.parse("--step=12").intValue("step", 8, 8, 64, 8)));
        assertEquals(
                "--passes needs a value: an integer from 1 to 10",
                rejected(() -> Args.parse("--passes").intValue("passes", 1, 1, 10)));
    }

    @Test
    void unknownOptionListsTheAllowedOnes() {
        Args args = Args.parse("--pases=3");
        args.intValue("passes", 1, 1, 10);
        args.flag("annotated", "annotated");
        assertEquals("unknown option '--pases': expected one of --passes, --annotated", rejected(args::rejectUnread));
    }

    @Test
    void strayTokenAndRepeatedOptionAreRefused() {
        Args args = Args.parse("3");
        args.intValue("passes", 1, 1, 10);
        assertEquals(
                "unexpected '3': expected options --key=value or --key value, one of --passes",
                rejected(args::rejectUnread));
        assertEquals(
                "--passes is given twice: give each option once",
                rejected(() -> Args.parse("--passes=1", "--passes=2")));
    }

    private static String rejected(Runnable use) {
        String message = assertThrows(UsageException.class, use::run).getMessage();
        assertFalse(message.contains("\n"), message);
        return message;
    }
}
