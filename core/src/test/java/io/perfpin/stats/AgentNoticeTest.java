package io.perfpin.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AgentNoticeTest {
    /**
     * A thread's name is the application's to choose, up to a million characters: a notice that quotes it keeps its
     * start and end, within the bound, as one line on stderr and one entry of the notices said.
     */
    @Test
    void aNoticeKeepsAtMostItsBoundOfWhatItQuotes() {
        String name = "w-" + "x".repeat(1_000_000) + "-end";
        AgentNotice notice = AgentNotice.refused("cannot pin thread '" + name + "' (worker-.*@9): no CPU 9");
        assertEquals(AgentNotice.MAX_TEXT, notice.text().length());
        assertTrue(notice.text().startsWith("cannot pin thread 'w-xxx"), notice.text());
        assertTrue(notice.text().endsWith("x-end' (worker-.*@9): no CPU 9"), notice.text());
        assertEquals(1, notice.text().chars().filter(c -> c == '\u2026').count());
        assertEquals(notice.text(), notice.subject(), "its subject is its text");

        String shortText = "cannot pin thread 'w-1' (worker-.*@9): no CPU 9";
        assertSame(shortText, AgentNotice.refused(shortText).text(), "within the bound: kept as it is");
    }

    /** A cut never splits a character beyond the basic plane, nor shows part of a credential. */
    @Test
    void aCutKeepsSurrogatePairsWholeAndCredentialsMasked() {
        // each half of the cut falls on a pair's first half, then on its second
        for (String wide : new String[] {
            "\uD83D\uDE00".repeat(2 * AgentNotice.MAX_TEXT), "x" + "\uD83D\uDE00".repeat(2 * AgentNotice.MAX_TEXT)
        }) {
            assertWhole(AgentNotice.info(wide).text());
        }

        // the credential where the cut falls: masked before it is cut
        String secret = "user:" + "s".repeat(3 * AgentNotice.MAX_TEXT);
        AgentNotice export = AgentNotice.refused("cannot export to http://" + secret + "@host:4318/v1/metrics");
        assertEquals("cannot export to http://***@host:4318/v1/metrics", export.text());
    }

    private static void assertWhole(String cut) {
        assertTrue(cut.length() <= AgentNotice.MAX_TEXT, cut.length() + " characters");
        for (int i = 0; i < cut.length(); i++) {
            char c = cut.charAt(i);
            if (Character.isHighSurrogate(c)) {
                assertTrue(i + 1 < cut.length() && Character.isLowSurrogate(cut.charAt(i + 1)), "at " + i);
            } else {
                assertFalse(Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(cut.charAt(i - 1))));
            }
        }
    }
}
