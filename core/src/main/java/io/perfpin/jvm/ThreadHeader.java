package io.perfpin.jvm;

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
 * @param name the thread's name
 * @param javaId its Java id ({@code #ID}), or null for the VM's own threads
 * @param tid the {@code [TID]} that JDK 19 and later print, or null
 * @param daemon whether {@code daemon} was printed
 * @param nid the {@code nid=} value as printed (hex with {@code 0x}, or decimal), or null
 */
record ThreadHeader(String name, String javaId, String tid, boolean daemon, String nid) {
    /** The header that {@code text} reads as, whole, or null. */
    static ThreadHeader parse(CharSequence text) {
        if (text.length() < 2 || text.charAt(0) != '"') {
            return null;
        }
        int lastBreak = lastLineBreak(text);
        for (int quote = text.length() - 2; quote >= 1; quote--) {
            if (text.charAt(quote) == '"' && text.charAt(quote + 1) == ' ') {
                ThreadHeader header = after(
                        text, quote + 2, lastBreak, text.subSequence(1, quote).toString());
                if (header != null) {
                    return header;
                }
            }
        }
        return null;
    }

    /**
     * The header whose name is {@code name} when what follows it, from {@code at}, reads as a header's rest, where
     * {@code lastBreak} is the index of its last line terminator (-1 when it has none).
     */
    private static ThreadHeader after(CharSequence text, int at, int lastBreak, String name) {
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
            if (startsWith(text, at, "tid=0x")) {
                int end = hex(text, at + "tid=0x".length());
                // What follows tid= is the rest of its line: no line ends after it.
                if (end >= 0 && (end == text.length() || (text.charAt(end) == ' ' && end > lastBreak))) {
                    return new ThreadHeader(name, javaId, tid, daemon, nid(text, end));
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
