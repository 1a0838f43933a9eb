package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ModifiedUtf8Test {
    @Test
    void joinsThreeByteSurrogatesIntoOneCharacter() {
        // U+1F680 as HotSpot writes it (surrogates D83D DE80), bytes taken from the jdk25 fixture.
        byte[] rocket = {(byte) 0xed, (byte) 0xa0, (byte) 0xbd, (byte) 0xed, (byte) 0xba, (byte) 0x80};
        assertEquals("\uD83D\uDE80", decode(rocket));
    }

    @Test
    void readsStandardUtf8Too() {
        String text = "ünï 线程 \uD83D\uDE80 \"x\"";
        assertEquals(text, decode(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void readsTheTwoByteNul() {
        assertEquals("a\0b", decode(new byte[] {'a', (byte) 0xc0, (byte) 0x80, 'b'}));
    }

    @Test
    void replacesMalformedBytesOneByOne() {
        assertEquals("a\uFFFDb\uFFFD", decode(new byte[] {'a', (byte) 0x80, 'b', (byte) 0xe7}));
        assertEquals("\uFFFD\uFFFDc", decode(new byte[] {(byte) 0xe7, (byte) 0xba, 'c'}));
    }

    @Test
    void theJdksDecoderIsTakenOnlyWhereItReadsAsThisDoes() {
        // Bytes of every kind a dump may hold: ASCII, standard UTF-8 (U+FFFD itself too), modified UTF-8's
        // surrogates and NUL, overlong forms, stray continuations and cut sequences.
        byte[][] pieces = {
            "worker-1 ".getBytes(StandardCharsets.UTF_8),
            "ünï 线程 \uD83D\uDE80 \uFFFD".getBytes(StandardCharsets.UTF_8),
            {(byte) 0xed, (byte) 0xa0, (byte) 0xbd},
            {(byte) 0xed, (byte) 0xba, (byte) 0x80},
            {(byte) 0xc0, (byte) 0x80},
            {(byte) 0xe0, (byte) 0x81, (byte) 0x81},
            {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
            {(byte) 0x80},
            {(byte) 0xe7, (byte) 0xba},
            {(byte) 0xff}
        };
        Random random = new Random(23);
        for (int i = 0; i < 20_000; i++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int n = random.nextInt(6); n > 0; n--) {
                bytes.writeBytes(pieces[random.nextInt(pieces.length)]);
            }
            byte[] text = bytes.toByteArray();
            assertEquals(ModifiedUtf8.modified(text, 0, text.length), decode(text), () -> Arrays.toString(text));
        }
    }

    private static String decode(byte[] bytes) {
        return ModifiedUtf8.decode(bytes, 0, bytes.length);
    }
}
