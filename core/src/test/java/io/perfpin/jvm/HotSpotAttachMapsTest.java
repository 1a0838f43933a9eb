package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The look for a mapped library in {@code /proc/PID/maps}, a block at a time. */
class HotSpotAttachMapsTest {
    @Test
    void thisJvmMapsLibjvmAndNotALibraryNoOneHas() throws Exception {
        long self = ProcessHandle.current().pid();
        assertTrue(HotSpotAttach.mapsLibrary(self, "this JVM", "libjvm.so"));
        assertFalse(HotSpotAttach.mapsLibrary(self, "this JVM", "libperfpin-nowhere.so"));
    }

    @Test
    void aNameAcrossTwoBlocksIsFoundWhateverTheReadsReturn() throws IOException {
        for (int offset = 0; offset < 20; offset++) {
            String maps = "x".repeat(64 * 1024 - offset) + " /usr/lib/jvm/server/libjvm.so\n";
            assertTrue(HotSpotAttach.holds(new ByteArrayInputStream(bytes(maps)), "/libjvm.so"), "offset " + offset);
            assertTrue(HotSpotAttach.holds(new Trickle(bytes(maps), 4093), "/libjvm.so"), "offset " + offset);
        }
        String without = "x".repeat(200_000) + " /usr/lib/libjv\n/m.so\n";
        assertFalse(HotSpotAttach.holds(new Trickle(bytes(without), 7), "/libjvm.so"));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A stream that gives at most {@code most} bytes a read, as a file of /proc may. */
    private static final class Trickle extends InputStream {
        private final ByteArrayInputStream in;
        private final int most;

        Trickle(byte[] bytes, int most) {
            this.in = new ByteArrayInputStream(bytes);
            this.most = most;
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            return in.read(b, off, Math.min(len, most));
        }
    }
}
