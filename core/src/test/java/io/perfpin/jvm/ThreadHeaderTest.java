package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link ThreadHeader}'s scan reads every header as the grammar, written here as the pattern perfpin used before it,
 * reads it: the same name, ids, daemon flag and nid, or no header at all. On the real dumps' headers (with the lines
 * after them, as a name with line breaks is read), and on headers made of the pieces that forge, cut or bend one.
 */
class ThreadHeaderTest {
    private static final Pattern GRAMMAR =
            Pattern.compile("\"(?<name>(?s:.*))\" (?:#(?<id>\\d+) (?:\\[(?<tid>\\d+)] )?(?<daemon>daemon )?prio=\\d+ )?"
                    + "os_prio=-?\\d+ (?:\\S+ )*?tid=0x\\p{XDigit}+(?: nid=(?<nid>0x\\p{XDigit}+|\\d+))?(?: .*)?");

    @Test
    void readsTheRealDumpsHeadersAsTheGrammarDoes() throws IOException {
        int headers = 0;
        for (String dump : List.of(
                ThreadDumpFixtureTest.dump("jdk17"),
                ThreadDumpFixtureTest.dump("jdk25"),
                ThreadDumpFixtureTest.resource("jdk25-virtual-thread-print.txt"))) {
            String[] lines = dump.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (!lines[i].startsWith("\"")) {
                    continue;
                }
                StringBuilder text = new StringBuilder(lines[i]);
                for (int next = i + 1; next <= Math.min(lines.length, i + 4); next++) {
                    headers += agrees(text.toString()) ? 1 : 0;
                    if (next < lines.length) {
                        text.append('\n').append(lines[next]);
                    }
                }
            }
        }
        assertTrue(headers > 100, headers + " headers read");
    }

    /**
     * A header's parts in order, each with what a dump prints there and what comes near it: cut, bent, doubled, in
     * other scripts' digits, with the line ending early. A made-up header takes one choice from each.
     */
    private static final List<List<String>> PARTS = List.of(
            List.of("\"", "\"", "\"", ""),
            List.of("", "worker-1", "a\" b", "\" #1 prio=5 os_prio=0 tid=0x1 nid=0x2 ", "x\ny", "\"\" ", "\u2028"),
            List.of("\" ", "\" ", "\" ", "\"", "\"  ", " "),
            List.of("", "", "#12 ", "#12 ", "#", "#12", "#x ", "#\u0663 "),
            List.of("", "[7] ", "[7]", "[] ", "[x] "),
            List.of("", "daemon ", "daemon", "daemon  "),
            List.of("", "prio=5 ", "prio=5 ", "prio= ", "prio=5", "prio=x "),
            List.of("os_prio=0 ", "os_prio=0 ", "os_prio=-1 ", "os_prio=- ", "os_prio=0", "os_prio=x ", ""),
            List.of(
                    "",
                    "",
                    "cpu=1.5ms elapsed=2s ",
                    "a  ",
                    "tid=0xzz ",
                    "tid=0x ",
                    "x\t",
                    "\u2028 ",
                    "\u0085 ",
                    "tid=0x1\n",
                    "\u000B "),
            List.of("tid=0x7f3a", "tid=0x7f3a", "tid=0x", "tid=0x7g", "tid=0x\uFF11", "tid=0x\u0663", ""),
            List.of("", " nid=0x1a2b", " nid=123", " nid=12ab", " nid=0x", " nid=", " nid=0x\uFF46", " nid=0x1G"),
            List.of(
                    "",
                    " runnable",
                    " waiting on condition  [0x00007f]",
                    "x",
                    " a\nb",
                    " a\rb",
                    " a\u2028b",
                    " a\u0085b",
                    " a\u2029b",
                    " a\u000Bb",
                    " \" os_prio=0 tid=0x1",
                    "\n\"y\" os_prio=0 tid=0x2 x"));

    @Test
    void readsMadeUpHeadersAsTheGrammarDoes() {
        Random random = new Random(20261127L);
        int headers = 0;
        for (int n = 0; n < 100_000; n++) {
            StringBuilder text = new StringBuilder();
            for (List<String> part : PARTS) {
                text.append(part.get(random.nextInt(part.size())));
            }
            headers += agrees(text.toString()) ? 1 : 0;
        }
        assertTrue(headers > 1_000, headers + " of the made-up lines are headers");
    }

    /** Whether {@code text} is a header, having checked that the scan reads it as the grammar does. */
    private static boolean agrees(String text) {
        Matcher matcher = GRAMMAR.matcher(text);
        ThreadHeader expected = matcher.matches()
                ? new ThreadHeader(
                        matcher.group("name"),
                        matcher.group("id"),
                        matcher.group("tid"),
                        matcher.group("daemon") != null,
                        matcher.group("nid"))
                : null;
        assertEquals(expected, ThreadHeader.parse(text), () -> "header '" + TerminalText.escape(text) + "'");
        return expected != null;
    }
}
