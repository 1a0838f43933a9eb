package io.perfpin.report;

import io.perfpin.files.OutputFile;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A JSON-lines recording, private to its user (0600). Lines are buffered and flushed by the sampler once
 * per interval, so a crash of the JVM loses at most the last interval.
 */
public final class JsonLinesFile implements AutoCloseable {
    private final BufferedWriter out;
    private final Path path;

    private JsonLinesFile(BufferedWriter out, Path path) {
        this.out = out;
        this.path = path;
    }

    /** Creates {@code file} as {@link OutputFile} says: new, or replacing a regular file of this user's. */
    public static JsonLinesFile create(Path file) throws IOException {
        return over(OutputFile.create(file), file);
    }

    /** Writes through {@code channel}, open on the new file {@code file}. */
    static JsonLinesFile over(FileChannel channel, Path file) {
        return new JsonLinesFile(new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8), 1 << 16),
                file.toAbsolutePath());
    }

    /** The file written, as an absolute path. */
    public Path path() {
        return path;
    }

    public void write(String jsonObject) throws IOException {
        out.write(jsonObject);
        out.write('\n');
    }

    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
