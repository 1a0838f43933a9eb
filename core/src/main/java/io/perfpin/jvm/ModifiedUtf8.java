package io.perfpin.jvm;

import java.nio.charset.StandardCharsets;

/**
 * Decodes text as HotSpot writes it: modified UTF-8, where a character beyond U+FFFF travels as its two
 * UTF-16 surrogates of three bytes each. A standard UTF-8 decoder turns those into replacement characters,
 * and a thread named with an emoji would then never match its own name.
 */
final class ModifiedUtf8 {
    private static final char REPLACEMENT = '\uFFFD';

    private ModifiedUtf8() {}

    /** Decodes {@code length} bytes from {@code offset}; a malformed byte becomes U+FFFD and decoding goes on. */
    static String decode(byte[] bytes, int offset, int length) {
        // Standard UTF-8 reads every well-formed sequence as this does, and puts U+FFFD where it differs (a surrogate
        // or NUL of modified UTF-8, an overlong form). The JDK's decoder copies ASCII, all of a dump but the odd
        // name, in bulk: a dump of 100 threads was 5 ms of CPU here, a char at a time in the interpreter.
        String standard = new String(bytes, offset, length, StandardCharsets.UTF_8);
        return standard.indexOf(REPLACEMENT) < 0 ? standard : modified(bytes, offset, length);
    }

    /** The decoding itself, a char at a time. */
    static String modified(byte[] bytes, int offset, int length) {
        StringBuilder text = new StringBuilder(length);
        int end = offset + length;
        int i = offset;
        while (i < end) {
            int lead = bytes[i] & 0xff;
            if (lead < 0x80) {
                text.append((char) lead);
                i++;
                continue;
            }
            int continuations = lead < 0xc0 ? -1 : lead < 0xe0 ? 1 : lead < 0xf0 ? 2 : lead < 0xf8 ? 3 : -1;
            if (continuations < 0 || i + continuations >= end) {
                text.append(REPLACEMENT);
                i++;
                continue;
            }
            int codePoint = lead & (0x3f >> continuations);
            boolean wellFormed = true;
            for (int c = 1; c <= continuations; c++) {
                int next = bytes[i + c] & 0xff;
                wellFormed &= (next & 0xc0) == 0x80;
                codePoint = codePoint << 6 | next & 0x3f;
            }
            if (!wellFormed || codePoint > Character.MAX_CODE_POINT) {
                text.append(REPLACEMENT);
                i++;
                continue;
            }
            // A three-byte surrogate is appended as the char it is: its pair completes the character.
            text.appendCodePoint(codePoint);
            i += continuations + 1;
        }
        return text.toString();
    }
}
