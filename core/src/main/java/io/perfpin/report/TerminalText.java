package io.perfpin.report;

/**
 * Text made safe for one line of a terminal. Thread names, options and file contents are other people's
 * text: a newline in a thread name would split a table row, an escape sequence ({@code ESC[31m}, or one that
 * retitles the window) would be obeyed, and a bidi override (U+202E) would show the rest of the line reversed.
 * So C0 controls, DEL, C1 controls (U+0080..U+009F) and the bidi embeddings, overrides, isolates and marks
 * are written visibly: newline, tab and carriage return as {@code \n}, {@code \t} and {@code \r}, the others
 * up to U+00FF as {@code \x} and two hex digits ({@code \x1b} for ESC), the bidi controls as a backslash, u and
 * four hex digits, as Java writes them. Every other character is kept. CSV and JSON output keep names whole:
 * their own quoting carries them.
 */
public final class TerminalText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TerminalText() {
    }

    public static String escape(String text) {
        int first = 0;
        while (first < text.length() && !unsafe(text.charAt(first))) {
            first++;
        }
        if (first == text.length()) {
            return text;
        }
        StringBuilder safe = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!unsafe(c)) {
                safe.append(c);
            } else if (c == '\n') {
                safe.append("\\n");
            } else if (c == '\t') {
                safe.append("\\t");
            } else if (c == '\r') {
                safe.append("\\r");
            } else if (c <= 0xff) {
                safe.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else {
                safe.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                        .append(HEX[c & 0xf]);
            }
        }
        return safe.toString();
    }

    private static boolean unsafe(char c) {
        return c < 0x20 || c >= 0x7f && c <= 0x9f
                || c == 0x061c // Arabic letter mark
                || c == 0x200e || c == 0x200f // left-to-right and right-to-left marks
                || c >= 0x202a && c <= 0x202e // embeddings and overrides
                || c >= 0x2066 && c <= 0x2069; // isolates
    }
}
