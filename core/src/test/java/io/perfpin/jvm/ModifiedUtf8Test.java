package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
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

    private static String decode(byte[] bytes) {
        return ModifiedUtf8.decode(bytes, 0, bytes.length);
    }
}
