package io.perfpin.report;

import io.perfpin.files.NamedFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The lines of a JSON-lines file, read one at a time with a bound on each, so that reading a recording takes
 * memory in its longest line, never in its size. A perfpin record is a few kilobytes at most (names are cut,
 * {@link ThreadRecords#MAX_NAME_CHARS}); a line past {@link #MAX_LINE_BYTES} is none: it is read past, not kept, and
 * the next line is read. A device is never opened ({@code /dev/zero} would be one endless line).
 */
final class JsonLinesReader implements AutoCloseable {
    /** 1 MiB. */
    static final int MAX_LINE_BYTES = 1 << 20;

    private final InputStream in;
    private final byte[] buffer = new byte[1 << 16];
    private int position;
    private int limit;
    private byte[] line = new byte[8192];

    private JsonLinesReader(InputStream in) {
        this.in = in;
    }

    /** A file a user named: no FIFO waited on, no device opened, no other user's link followed. */
    static JsonLinesReader open(Path file) throws IOException {
        return new JsonLinesReader(Channels.newInputStream(NamedFile.openForReading(file)));
    }

    /** Whether another line follows, complete or not. */
    boolean hasNext() throws IOException {
        if (position == limit) {
            limit = Math.max(0, in.read(buffer));
            position = 0;
        }
        return position < limit;
    }

    /**
     * The next line, when {@link #hasNext()} says there is one, without its {@code \n}; malformed UTF-8 is
     * replaced, since a line cut inside a character is still a line to judge.
     *
     * @throws LineTooLongException when the line is longer than {@link #MAX_LINE_BYTES}: it was read past, and the
     *                               next call reads the line after it
     */
    String next() throws IOException {
        int length = 0;
        boolean tooLong = false;
        while (hasNext()) {
            int start = position;
            while (position < limit && buffer[position] != '\n') {
                position++;
            }
            int chunk = position - start;
            if (tooLong || length + chunk > MAX_LINE_BYTES) {
                tooLong = true;
            } else if (length + chunk > line.length) {
                line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, Math.max(length + chunk, line.length * 2)));
            }
            if (!tooLong) {
                System.arraycopy(buffer, start, line, length, chunk);
                length += chunk;
            }
            if (position < limit) {
                position++; // past the newline
                break;
            }
        }
        if (tooLong) {
            throw new LineTooLongException();
        }
        return new String(line, 0, length, StandardCharsets.UTF_8);
    }

    /** A line longer than {@link #MAX_LINE_BYTES}, which no record is; the reader is past it. */
    static final class LineTooLongException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        LineTooLongException() {
            super("a line longer than " + MAX_LINE_BYTES + " bytes (1 MiB), which no record is");
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
