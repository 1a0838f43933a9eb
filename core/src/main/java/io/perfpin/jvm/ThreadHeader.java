package io.perfpin.jvm;

import java.nio.CharBuffer;

/**
 * One thread's header line of a HotSpot thread dump, read by a scan:
 *
 * <pre>
 * "NAME" [#ID [[TID] ][daemon ]prio=P ]os_prio=P [TOKEN ]...tid=0xHEX[ nid=(0xHEX|DECIMAL)][ REST]
 * </pre>
 *
 * <p>The name is everything between the first quote and the last quote after which the rest reads so: the VM prints
 * a name raw, and writes no quote after it. Tokens are runs of non-blank characters with one space after each;
 * {@code tid=} is the first of them that reads as one, and what follows it stays on the line. A scan, not a
 * pattern, because {@code perfpin stat} reads a hundred of these as it starts, in code run for the first time,
 * where a pattern's backtracking over each name took 15 ms.
 *
 * <p>The rest has no line feed (its tokens are separated by spaces, and what follows {@code tid=} ends the line), so
 * the quote that ends the name is on the header's last line, and only that line is scanned: a name of many lines,
 * each a quote and a space, would otherwise be scanned again for each of its lines, and each of those quotes tried
 * as the name's end. Within the line each candidate's tokens are read once for all candidates, and the name is copied
 * only for the header that reads whole: the scan is linear in the line's length whatever the name holds.
 *
 * @param name the thread's name
 * @param javaId its Java id ({@code #ID}), or null for the VM's own threads
 * @param tid the {@code [TID]} that JDK 19 and later print, or null
 * @param daemon whether {@code daemon} was printed
 * @param nid the {@code nid=} value as printed (hex with {@code 0x}, or decimal), or null
 */
record ThreadHeader(String name, String javaId, String tid, boolean daemon, String nid) {
    /** The header that {@code text} reads as, whole, or null. */
    static ThreadHeader parse(CharSequence text) {
        int lastLine = 0;
        for (int i = text.length() - 1; i >= 0; i--) {
            if (text.charAt(i) == '\n') {
                lastLine = i + 1;
                break;
            }
        }
        return parse(text, 0, lastLine, text.length());
    }

    /**
     * The header that {@code text} from {@code start} to {@code end} reads as, whole, or null; its last line begins at
     * {@code lastLine}, after the last line feed before {@code end} (or at {@code start}).
     */
    static ThreadHeader parse(CharSequence text, int start, int lastLine, int end) {
        if (end - start < 2 || text.charAt(start) != '"') {
            return null;
        }
        ThreadHeader[] rest = new ThreadHeader[1];
        int quote = nameEnd(text, Math.max(lastLine, start + 1), lastLine, end, rest);
        return quote < 0
                ? null
                : new ThreadHeader(
                        text.subSequence(start + 1, quote).toString(),
                        rest[0].javaId,
                        rest[0].tid,
                        rest[0].daemon,
                        rest[0].nid);
    }

    /**
     * Whether a header's rest follows a quote at or after {@code first} in the line from {@code lastLine} to
     * {@code end}: whether that line ends a header begun on it before {@code first}, or on a line above it. For a line
     * below a header's first, it does or does not whatever began the header, since a name may hold anything. No name is
     * copied.
     */
    static boolean ends(CharSequence text, int first, int lastLine, int end) {
        return nameEnd(text, first, lastLine, end, new ThreadHeader[1]) >= 0;
    }

    /**
     * Where a name ends in the line from {@code lastLine} to {@code end}: at the last quote from {@code first} on that
     * the rest of a header follows, which goes in {@code rest}; -1 when there is none.
     */
    private static int nameEnd(CharSequence text, int first, int lastLine, int end, ThreadHeader[] rest) {
        CharSequence line = CharBuffer.wrap(text, lastLine, end);
        int lastBreak = lastLineBreak(line);
        boolean[] failed = null;
        for (int quote = line.length() - 2; quote >= first - lastLine; quote--) {
            if (line.charAt(quote) == '"' && line.charAt(quote + 1) == ' ') {
                if (failed == null) {
                    failed = new boolean[line.length() + 1];
                }
                rest[0] = after(line, quote + 2, lastBreak, failed);
                if (rest[0] != null) {
                    return lastLine + quote;
                }
            }
        }
        return -1;
    }

    /**
     * The rest of a header (its name null) when what follows a name, from {@code at}, reads as one, where
     * {@code lastBreak} is the index of its last line terminator (-1 when it has none). {@code failed} marks the token
     * starts from which the tokens were read before and did not reach a {@code tid=}: what follows a token start reads
     * the same whichever name's end came before it, so it is read once.
     */
    private static ThreadHeader after(CharSequence text, int at, int lastBreak, boolean[] failed) {
        String javaId = null;
        String tid = null;
        boolean daemon = false;
        if (at < text.length() && text.charAt(at) == '#') {
            int end = digits(text, at + 1);
            if (end < 0 || !spaceAt(text, end)) {
                return null;
            }
            javaId = text.subSequence(at + 1, end).toString();
            at = end + 1;
            if (at < text.length() && text.charAt(at) == '[') {
                int close = digits(text, at + 1);
                if (close < 0 || !startsWith(text, close, "] ")) {
                    return null;
                }
                tid = text.subSequence(at + 1, close).toString();
                at = close + 2;
            }
            if (startsWith(text, at, "daemon ")) {
                daemon = true;
                at += "daemon ".length();
            }
            int prio = startsWith(text, at, "prio=") ? digits(text, at + "prio=".length()) : -1;
            if (prio < 0 || !spaceAt(text, prio)) {
                return null;
            }
            at = prio + 1;
        }
        if (!startsWith(text, at, "os_prio=")) {
            return null;
        }
        at += "os_prio=".length();
        if (at < text.length() && text.charAt(at) == '-') {
            at++;
        }
        at = digits(text, at);
        if (at < 0 || !spaceAt(text, at)) {
            return null;
        }
        for (at++; at < text.length(); ) {
            if (failed[at]) {
                return null;
            }
            failed[at] = true; // so far: a header found ends the scan, and the marks with it
            if (startsWith(text, at, "tid=0x")) {
                int end = hex(text, at + "tid=0x".length());
                // What follows tid= is the rest of its line: no line ends after it.
                if (end >= 0 && (end == text.length() || (text.charAt(end) == ' ' && end > lastBreak))) {
                    return new ThreadHeader(null, javaId, tid, daemon, nid(text, end));
                }
            }
            int token = at;
            while (at < text.length() && !blank(text.charAt(at))) {
                at++;
            }
            if (at == token || !spaceAt(text, at)) {
                return null;
            }
            at++;
        }
        return null;
    }

    /** The {@code nid=} value that follows {@code at} and ends at a space or the end, or null. */
    private static String nid(CharSequence text, int at) {
        if (!startsWith(text, at, " nid=")) {
            return null;
        }
        int start = at + " nid=".length();
        int end = startsWith(text, start, "0x") ? hex(text, start + 2) : digits(text, start);
        return end >= 0 && (end == text.length() || text.charAt(end) == ' ')
                ? text.subSequence(start, end).toString()
                : null;
    }

    /** The end of the decimal digits from {@code at}, or -1 when there are none. */
    private static int digits(CharSequence text, int at) {
        int end = at;
        while (end < text.length() && text.charAt(end) >= '0' && text.charAt(end) <= '9') {
            end++;
        }
        return end > at ? end : -1;
    }

    /** The end of the hex digits from {@code at}, or -1 when there are none. */
    private static int hex(CharSequence text, int at) {
        int end = at;
        while (end < text.length() && Character.digit(text.charAt(end), 16) >= 0 && text.charAt(end) < 128) {
            end++;
        }
        return end > at ? end : -1;
    }

    private static boolean spaceAt(CharSequence text, int at) {
        return at < text.length() && text.charAt(at) == ' ';
    }

    private static boolean startsWith(CharSequence text, int at, String prefix) {
        if (at < 0 || at + prefix.length() > text.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (text.charAt(at + i) != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Where the last line terminator is that a pattern's {@code .} does not cross, or -1: found once, since a name
     * can hold many {@code tid=} tokens, each of which would look for it again.
     */
    private static int lastLineBreak(CharSequence text) {
        for (int i = text.length() - 1; i >= 0; i--) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                return i;
            }
        }
        return -1;
    }

    /** What separates tokens: a space, a tab, a line break, a vertical tab, a form feed. */
    private static boolean blank(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }
}
