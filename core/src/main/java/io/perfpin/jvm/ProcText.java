package io.perfpin.jvm;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A file of {@code /proc}, read whole as text: what the kernel writes as it is read. The readers of a thread's
 * counts and state ({@code stat}, {@code status}, {@code sched}) read through this, several times for each thread
 * {@code perfpin stat} counts, as does the agent's look at its process's limits as it starts.
 */
public final class ProcText {
    private static final int FIRST_READ = 4096;

    private ProcText() {}

    /**
     * The file's content; lenient UTF-8, since a thread name cut at 15 bytes may end inside a character.
     *
     * @throws IOException when it cannot be opened or read: the thread ended, or is not the caller's to read
     */
    public static String read(String path) throws IOException {
        // A FileInputStream read to its end, not Files: /proc reports a size of 0, and a short-lived CLI runs this in
        // the interpreter, where the NIO path (provider, channel, stream) took twice as long for each file.
        try (FileInputStream in = new FileInputStream(path)) {
            byte[] bytes = new byte[FIRST_READ];
            int length = 0;
            for (int n; (n = in.read(bytes, length, bytes.length - length)) > 0; ) {
                length += n;
                if (length == bytes.length) {
                    bytes = Arrays.copyOf(bytes, 2 * length);
                }
            }
            return new String(bytes, 0, length, StandardCharsets.UTF_8);
        }
    }
}
