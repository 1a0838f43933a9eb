package io.perfpin.report;

import io.perfpin.files.OutputFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A JSON-lines recording, private to its user (0600). Lines are buffered and flushed by the sampler once
 * per interval, so a crash of the JVM loses at most the last interval.
 *
 * <p>The file holds whole lines only, whatever a write does: a write that fails (a full disk, a file-size limit)
 * may have put part of its lines in the file, and the file is cut back to the last whole line. What it had
 * written stays readable, and {@link #endWith} can still end it with a line that says why it stopped.
 */
public final class JsonLinesFile implements AutoCloseable {
    private static final int BUFFER = 1 << 16;
    /** How many whole lines {@link #endWith} may give up to make room for its line. */
    private static final int GIVE_UP_AT_MOST = 64;

    private final FileChannel channel;
    private final Path path;
    private ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
    /** The size of the file's whole lines, all that reached it: where the next flush writes. */
    private long whole;
    /** Where the last whole lines begin, a ring of {@link #GIVE_UP_AT_MOST}, for {@link #endWith}. */
    private final long[] lineStarts = new long[GIVE_UP_AT_MOST];

    private int lines;
    /** The starts of the lines in {@link #buffer}, which become whole once flushed. */
    private long[] bufferedStarts = new long[256];

    private int buffered;
    private boolean ended;

    private JsonLinesFile(FileChannel channel, Path path) {
        this.channel = channel;
        this.path = path;
    }

    /** Creates {@code file} as {@link OutputFile} says: new, or replacing a regular file of this user's. */
    public static JsonLinesFile create(Path file) throws IOException {
        return over(OutputFile.create(file), file);
    }

    /** Writes through {@code channel}, open on the new, empty file {@code file}. */
    public static JsonLinesFile over(FileChannel channel, Path file) {
        return new JsonLinesFile(channel, file.toAbsolutePath());
    }

    /** The file written, as an absolute path. */
    public Path path() {
        return path;
    }

    public void write(String jsonObject) throws IOException {
        if (ended) {
            throw new IOException(path + " was ended");
        }
        byte[] line = (jsonObject + '\n').getBytes(StandardCharsets.UTF_8);
        if (buffer.remaining() < line.length) {
            flush();
            if (buffer.capacity() < line.length) {
                buffer = ByteBuffer.allocate(line.length); // a line longer than the buffer: one of its own
            }
        }
        if (buffered == bufferedStarts.length) {
            bufferedStarts = Arrays.copyOf(bufferedStarts, buffered * 2);
        }
        bufferedStarts[buffered++] = whole + buffer.position();
        buffer.put(line);
    }

    /**
     * Writes the buffered lines to the file.
     *
     * @throws IOException when they could not all be written: the file is cut back to its last whole line, and the
     *                     lines that were buffered are lost
     */
    public void flush() throws IOException {
        if (buffer.position() == 0) {
            return;
        }
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                channel.write(buffer, whole + buffer.position());
            }
        } catch (IOException | RuntimeException e) {
            buffer.clear();
            buffered = 0;
            cutBackTo(whole, e);
            throw e;
        }
        for (int i = 0; i < buffered; i++) {
            lineStarts[lines++ % GIVE_UP_AT_MOST] = bufferedStarts[i];
        }
        whole += buffer.limit();
        buffer.clear();
        buffered = 0;
        if (buffer.capacity() > BUFFER) {
            buffer = ByteBuffer.allocate(BUFFER);
        }
    }

    /**
     * Ends the file with {@code lastLine}, after a write failed: what is still buffered is dropped, and when the
     * file system has no room for the line (a disk that is full, a size limit reached), the last whole lines give
     * theirs, up to {@value #GIVE_UP_AT_MOST} of them: a recording that stopped early must say so last. Nothing is
     * written after it.
     *
     * @throws IOException when even that did not make room: the file ends with its last whole line
     */
    public void endWith(String lastLine) throws IOException {
        ended = true;
        buffer.clear();
        buffered = 0;
        ByteBuffer line = ByteBuffer.wrap((lastLine + '\n').getBytes(StandardCharsets.UTF_8));
        long at = whole;
        for (int given = 0; ; given++) {
            try {
                while (line.hasRemaining()) {
                    channel.write(line, at + line.position());
                }
                whole = at + line.limit();
                return;
            } catch (IOException e) {
                cutBackTo(at, e);
                long previous = given < Math.min(lines, GIVE_UP_AT_MOST)
                        ? lineStarts[(lines - 1 - given) % GIVE_UP_AT_MOST]
                        : 0;
                if (previous == 0) {
                    // the file's first line stays: it says what the file is (a recording's JVM record)
                    whole = at;
                    throw e;
                }
                at = previous;
                cutBackTo(at, e); // the line given up goes whole
                line.rewind();
            }
        }
    }

    /** Cuts the file back to {@code size}, where a line ends; a failure to is added to {@code cause}. */
    private void cutBackTo(long size, Exception cause) {
        try {
            channel.truncate(size);
        } catch (IOException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (!ended) {
                flush();
            }
        } finally {
            channel.close();
        }
    }
}
