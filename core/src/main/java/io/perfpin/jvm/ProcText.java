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
     * The first word after {@code name} in {@code text}, the spaces and tabs between them skipped: a field of a
     * {@code /proc} file such as {@code status} or {@code limits}; null where {@code name} is not there. Found by
     * hand: a split's pattern would load the regex engine in premain.
     */
    public static String word(String text, String name) {
        int at = text.indexOf(name);
        if (at < 0) {
            return null;
        }
        int from = at + name.length();
        while (from < text.length() && (text.charAt(from) == ' ' || text.charAt(from) == '\t')) {
            from++;
        }
        int end = from;
        while (end < text.length() && !Character.isWhitespace(text.charAt(end))) {
            end++;
        }
        return text.substring(from, end);
    }

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
