package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real hsperfdata files of JDK 17 and Temurin 25, started with and without -XX:+DisableAttachMechanism. */
class PerfDataTest {
    @ParameterizedTest
    @ValueSource(strings = {"jdk17", "jdk25"})
    void saysWhetherTheJvmAcceptsAttach(String jdk) throws IOException {
        PerfData plain = PerfData.parse(fixture(jdk + ".hsperfdata"));
        PerfData disabled = PerfData.parse(fixture(jdk + "-attach-disabled.hsperfdata"));

        assertEquals(Optional.of(true), plain.attachSupported());
        assertEquals(Optional.of(false), disabled.attachSupported());
        assertEquals(Optional.of("Idle"), plain.string("sun.rt.javaCommand"));
        assertEquals(Optional.of("-XX:+DisableAttachMechanism"), disabled.string("java.rt.vmArgs"));
    }

    /** Damaged or planted bytes: read as far as they are sound, never past their end, never another failure. */
    @Test
    void damagedFilesNeverReadPastTheirBounds() throws IOException {
        byte[] real = fixture("jdk17.hsperfdata");
        Random random = new Random(17);
        for (int round = 0; round < 500; round++) {
            byte[] bytes = java.util.Arrays.copyOf(real, random.nextInt(real.length + 1));
            for (int flips = random.nextInt(64); flips > 0 && bytes.length > 0; flips--) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt();
            }
            try {
                PerfData.parse(bytes).attachSupported();
            } catch (IOException notPerfData) {
                assertEquals("not an hsperfdata file", notPerfData.getMessage());
            }
        }
        assertThrows(IOException.class, () -> PerfData.parse(new byte[16]));
    }

    private static byte[] fixture(String name) throws IOException {
        try (InputStream in = PerfDataTest.class.getResourceAsStream("/jvm/hsperfdata/" + name)) {
            return in.readAllBytes();
        }
    }
}
