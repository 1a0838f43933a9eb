package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class TerminalTextTest {
    @Test
    void controlsAndBidiOverridesAreWrittenVisibly() {
        assertEquals("a\\tb\\nc\\rd", TerminalText.escape("a\tb\nc\rd"));
        assertEquals("\\x1b[31mred\\x1b[0m", TerminalText.escape("\u001b[31mred\u001b[0m"));
        assertEquals("\\x00\\x07\\x7f\\x80\\x9b\\x9f", TerminalText.escape("\u0000\u0007\u007f\u0080\u009b\u009f"));
        assertEquals("abc\\u202efed\\u202c", TerminalText.escape("abc\u202efed\u202c"));
        assertEquals(
                "\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c\\u202a",
                TerminalText.escape("\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a"));
    }

    @Test
    void everythingElseIsKeptAndEscapingTwiceChangesNothing() {
        String printable = "io-1 \\ ´é 漢字 \u00a0 😀 \"quoted\"";
        assertSame(printable, TerminalText.escape(printable));
        String once = TerminalText.escape("\t\u001b\u202e");
        assertEquals(once, TerminalText.escape(once));
    }
}
