package io.perfpin.agent.impl;

import io.perfpin.files.OutputFile;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.options.UrlText;
import io.perfpin.report.TerminalText;
import io.perfpin.stats.AgentNotice;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The file the agent option {@code log=FILE} names: each notice with its time, and each failure with its stack trace
 * every time it happens, where stderr says a notice once and a failure without its trace. It is created by
 * perfpin's own rule for the files a user names ({@link OutputFile}: 0600, no link followed, a new file or one of
 * the user's own replaced), so a root JVM never writes through another user's link.
 *
 * <p>Each entry is one {@code write(2)} at the file's end, as soon as it is said: nothing is buffered in the JVM, so a
 * JVM killed right after a failure leaves it in the file. It is written through the file's descriptor, not a
 * {@code FileChannel}, which an interrupt of the application's thread that says a notice would close. No
 * {@code fsync}: what the kernel holds outlives the process, and a sync on every notice would make a slow disk slow the
 * agent down. The file is bounded ({@link #MAX_BYTES}): a failure that comes on every tick fills it in hours, not the
 * disk; one last line says that it stopped there.
 */
final class AgentLogFile implements AutoCloseable {
    /** Some tens of thousands of stack traces: a day of a failure on every tick, in a size no disk minds. */
    static final long MAX_BYTES = 8L * 1024 * 1024;
    /** ISO-8601, to the millisecond always, with the offset: lines of two machines or zones compare. */
    static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX");

    private static final int LAST_LINE_ROOM = 256;

    private final Path path;
    private final FileCalls calls;
    /** The file's descriptor, perfpin's own: closed once, by {@link #close}. */
    private final int fd;

    private final long maxBytes;
    private long written;
    /** Set once the bound was reached or the file closed: nothing more is written. */
    private boolean stopped;
    /** Set once its descriptor was given back: a number the process may give to another file by then. */
    private boolean closed;

    private AgentLogFile(Path path, FileCalls calls, int fd, long maxBytes) {
        this.path = path;
        this.calls = calls;
        this.fd = fd;
        this.maxBytes = maxBytes;
    }

    /**
     * @throws IOException one line naming the file and what is wrong with it ({@link OutputFile})
     */
    static AgentLogFile create(Path path) throws IOException {
        return create(path, MAX_BYTES);
    }

    /** As {@link #create(Path)}, bounded at {@code maxBytes} (at least a few hundred). */
    static AgentLogFile create(Path path, long maxBytes) throws IOException {
        return new AgentLogFile(path, FileCalls.ofProcess(), OutputFile.createDescriptor(path), maxBytes);
    }

    Path path() {
        return path;
    }

    /**
     * Appends {@code notice}: its time, kind and text on one line, then its cause's stack trace, each line escaped
     * as on a terminal (the texts quote thread names and options) and with URL credentials masked, as in every
     * other place a notice goes.
     *
     * @throws IOException when the file cannot be written: it is closed, and says nothing more
     */
    synchronized void write(AgentNotice notice, OffsetDateTime when) throws IOException {
        if (stopped) {
            return;
        }
        StringBuilder entry = new StringBuilder();
        entry.append(TIME.format(when))
                .append(' ')
                .append(notice.kind())
                .append(' ')
                .append(TerminalText.escape(notice.text()))
                .append('\n');
        if (notice.cause() != null) {
            StringWriter trace = new StringWriter();
            notice.cause().printStackTrace(new PrintWriter(trace));
            // a frame's leading tab as spaces: escaped, it would read \t; any other control is someone's text
            trace.toString()
                    .lines()
                    .forEach(line -> entry.append(TerminalText.escape(UrlText.masked(line.replace("\t", "    "))))
                            .append('\n'));
        }
        byte[] bytes = entry.toString().getBytes(StandardCharsets.UTF_8);
        if (written + bytes.length > maxBytes - LAST_LINE_ROOM) {
            bytes = (TIME.format(when) + " info the log stopped here, at its bound of " + maxBytes + " bytes: later"
                            + " notices are said on stderr and in the stats file only\n")
                    .getBytes(StandardCharsets.UTF_8);
            stopped = true;
        }
        long result;
        try {
            result = calls.writeAll(fd, bytes);
        } catch (RuntimeException e) {
            close();
            throw new IOException(e.toString(), e);
        }
        if (result < 0) {
            close();
            throw new IOException("cannot write " + path + ": " + Errno.words(result));
        }
        written += result;
    }

    /** Gives its descriptor back; nothing more is written. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            stopped = true;
            calls.close(fd); // released whatever it returns: what was written is in the kernel's hands
        }
    }
}
