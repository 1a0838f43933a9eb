package io.perfpin.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
    void lineSeparatorsAreWrittenVisibly() {
        assertEquals("a\\u2028b\\u2029c", TerminalText.escape("a\u2028b\u2029c"));
    }

    @Test
    void everythingElseIsKept() {
        String printable = "io-1 / ´é 漢字 \u00a0 😀 \"quoted\"";
        assertSame(printable, TerminalText.escape(printable));
    }

    /**
     * A backslash before what reads as an escape is doubled: a name that holds an escape's text never looks like one
     * that holds its character. Any other backslash is kept, as a regex's is typed.
     */
    @Test
    void noTwoTextsLookAlike() {
        List<String> names = List.of(
                "new\nline",
                "new\\nline",
                "new\\\nline",
                "new\\\\nline",
                "tab\tx",
                "tab\\tx",
                "esc\u001b",
                "esc\\x1b",
                "rtl\u202eo",
                "rtl\\u202eo",
                "ls\u2028",
                "ls\\u2028",
                "half\ud800",
                "half\\ud800",
                "nul\u0000",
                "nul\\x00",
                "back\\",
                "back\\\\");
        Set<String> shown = new HashSet<>();
        for (String name : names) {
            assertTrue(shown.add(TerminalText.escape(name)), () -> "shown like another: " + TerminalText.escape(name));
        }
        assertEquals("new\\\\nline", TerminalText.escape("new\\nline"));
        assertEquals("back\\", TerminalText.escape("back\\"));
        assertEquals("back\\\\\\", TerminalText.escape("back\\\\"));
        assertSame("worker-\\d+|(a)\\1", TerminalText.escape("worker-\\d+|(a)\\1"));
    }
}
