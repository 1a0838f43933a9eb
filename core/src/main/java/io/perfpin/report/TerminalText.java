package io.perfpin.report;

/**
 * Text made safe for one line of a terminal. Thread names, options and file contents are other people's
 * text: a newline in a thread name would split a table row, an escape sequence ({@code ESC[31m}, or one that
 * retitles the window) would be obeyed, and a bidi override (U+202E) would show the rest of the line reversed.
 * So C0 controls, DEL, C1 controls (U+0080..U+009F), the line and paragraph separators (U+2028, U+2029, which
 * some terminals and most viewers break a line at) and the bidi embeddings, overrides, isolates and marks are
 * written visibly: newline, tab and carriage return as {@code \n}, {@code \t} and {@code \r}, the others up to
 * U+00FF as {@code \x} and two hex digits ({@code \x1b} for ESC), the rest, and half a character (a lone
 * surrogate, which a Java thread name may hold and UTF-8 cannot carry), as a backslash, u and four hex digits, as
 * Java writes them. A backslash before what reads as an escape is written twice, so that no two texts look alike: a
 * thread named {@code a\nb} with a backslash shows as {@code a\\nb}, one with a newline as {@code a\nb}; any other
 * backslash is kept, so that a regex's {@code \d} reads as it was typed. Every other character is kept. CSV and
 * JSON output keep names whole: their own quoting carries them.
 */
public final class TerminalText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final char ELLIPSIS = (char) 0x2026;

    private TerminalText() {}

    public static String escape(String text) {
        int first = 0;
        while (first < text.length() && !unsafe(text, first)) {
            first++;
        }
        if (first == text.length()) {
            return text;
        }
        StringBuilder safe = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!unsafe(text, i)) {
                safe.append(c);
            } else if (c == '\\') {
                safe.append("\\\\");
            } else if (c == '\n') {
                safe.append("\\n");
            } else if (c == '\t') {
                safe.append("\\t");
            } else if (c == '\r') {
                safe.append("\\r");
            } else if (c <= 0xff) {
                safe.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else {
                safe.append("\\u")
                        .append(HEX[c >> 12])
                        .append(HEX[(c >> 8) & 0xf])
                        .append(HEX[(c >> 4) & 0xf])
                        .append(HEX[c & 0xf]);
            }
        }
        return safe.toString();
    }

    /**
     * The columns {@code text} takes on a terminal, for text already {@link #escape escaped}: a character of the
     * East Asian wide and fullwidth ranges (CJK, Hangul, fullwidth forms, most emoji) takes two, a combining mark
     * none, any other one. So tables stay aligned whatever script their names are in.
     */
    public static int width(String text) {
        // Printable ASCII, one column each, first: a table's cells, for a short-lived CLI run in the interpreter.
        int width = 0;
        while (width < text.length() && printableAscii(text.charAt(width))) {
            width++;
        }
        for (int i = width; i < text.length(); ) {
            int c = text.codePointAt(i);
            width += columns(c);
            i += Character.charCount(c);
        }
        return width;
    }

    /**
     * {@code text} (escaped) in at most {@code columns} terminal columns: whole when it fits, otherwise its start
     * and its end with an ellipsis between, so that names that differ only at their end stay apart.
     */
    public static String fit(String text, int columns) {
        if (width(text) <= columns) {
            return text;
        }
        int keep = columns - 1;
        String head = prefix(text, keep - keep / 2);
        String tail = new StringBuilder(prefix(new StringBuilder(text).reverse().toString(), keep / 2))
                .reverse()
                .toString();
        return head + ELLIPSIS + tail;
    }

    /** The longest start of {@code text} within {@code columns}, never splitting a surrogate pair. */
    private static String prefix(String text, int columns) {
        int width = 0;
        int end = 0;
        while (end < text.length()) {
            int c = text.codePointAt(end);
            if (width + columns(c) > columns) {
                break;
            }
            width += columns(c);
            end += Character.charCount(c);
        }
        return text.substring(0, end);
    }

    private static int columns(int c) {
        int type = Character.getType(c);
        if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || type == Character.FORMAT) {
            return 0;
        }
        return c >= 0x1100 && c <= 0x115f
                        || c >= 0x2e80 && c <= 0xa4cf && c != 0x303f
                        || c >= 0xac00 && c <= 0xd7a3
                        || c >= 0xf900 && c <= 0xfaff
                        || c >= 0xfe30 && c <= 0xfe4f
                        || c >= 0xff00 && c <= 0xff60
                        || c >= 0xffe0 && c <= 0xffe6
                        || c >= 0x1f300 && c <= 0x1f64f
                        || c >= 0x1f900 && c <= 0x1f9ff
                        || c >= 0x20000 && c <= 0x3fffd
                ? 2
                : 1;
    }

    /**
     * Half a character (a lone surrogate), which a terminal cannot show, is unsafe too; and a backslash before what
     * would read as an escape, since a backslash starts every escape.
     */
    private static boolean unsafe(String text, int i) {
        char c = text.charAt(i);
        return printableAscii(c)
                ? c == '\\' && startsAnEscape(text, i + 1)
                : isUnsafe(c) || Json.isLoneSurrogate(text, i);
    }

    /**
     * Whether what is written from {@code i} on begins as an escape does (a backslash, then a backslash, n, t, r, x or
     * u): only a backslash before it is doubled, so that a regex's {@code \d} reads as typed and no two texts still
     * look alike.
     */
    private static boolean startsAnEscape(String text, int i) {
        if (i >= text.length()) {
            return false;
        }
        char c = text.charAt(i);
        return c == '\\' || c == 'n' || c == 't' || c == 'r' || c == 'x' || c == 'u' || unsafe(text, i);
    }

    private static boolean printableAscii(char c) {
        return c >= 0x20 && c < 0x7f;
    }

    /**
     * Whether a terminal would act on {@code c} rather than show it, or show text in another order than it is
     * written: the C0 and C1 controls, DEL, the line separators, and the bidirectional marks, embeddings, overrides
     * and isolates.
     */
    public static boolean isUnsafe(char c) {
        return c < 0x20
                || c >= 0x7f && c <= 0x9f
                || c == 0x061c // Arabic letter mark
                || c == 0x200e
                || c == 0x200f // left-to-right and right-to-left marks
                || c == 0x2028
                || c == 0x2029 // line and paragraph separators
                || c >= 0x202a && c <= 0x202e // embeddings and overrides
                || c >= 0x2066 && c <= 0x2069; // isolates
    }
}
