package io.perfpin.nativeio;

import java.io.IOException;
import java.time.Duration;

/**
 * A connection to a Unix socket by its own system calls ({@link FileCalls}), for the JVM attach protocol: a request
 * written whole, then a reply read to its end against a deadline. Not the JDK's {@code SocketChannel}: its first Unix
 * socket seeds a {@code SecureRandom} (for names it never makes here) and its first selector makes a pipe and an
 * epoll set, 15 ms of a short-lived CLI's start before the first byte went out.
 */
public final class UnixConnection implements AutoCloseable {
    /** How long to wait before connecting again to a listener whose queue is full. */
    private static final Duration QUEUE_FULL_PAUSE = Duration.ofMillis(5);

    private final FileCalls calls;
    private final int fd;
    private NativeBuffer in;

    private UnixConnection(FileCalls calls, int fd) {
        this.calls = calls;
        this.fd = fd;
    }

    /**
     * Connects to the socket at {@code path}, with the calling thread's credentials (the listener sees them as its
     * peer's); null when nothing listens there. While the listener's queue is full, as when other tools attach to the
     * same JVM at once, it tries again until {@code deadline} ({@link System#nanoTime}).
     */
    public static UnixConnection connect(FileCalls calls, String path, long deadline) throws IOException {
        while (true) {
            int fd = calls.unixSocket();
            if (fd < 0) {
                throw new IOException("cannot make a Unix socket: " + Errno.words(fd));
            }
            int rc;
            try {
                do {
                    rc = calls.connectUnix(fd, path);
                } while (rc == -Errno.EINTR);
            } catch (RuntimeException | Error e) {
                calls.close(fd);
                throw e;
            }
            if (rc == 0) {
                return new UnixConnection(calls, fd);
            }
            calls.close(fd);
            if (rc == -Errno.ECONNREFUSED) {
                return null;
            }
            if (rc != -Errno.EAGAIN) {
                throw new IOException("cannot connect: " + Errno.words(rc));
            }
            if (System.nanoTime() + QUEUE_FULL_PAUSE.toNanos() - deadline > 0) {
                throw new IOException("its listener took no connection in time: its queue stayed full");
            }
            try {
                Thread.sleep(QUEUE_FULL_PAUSE.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while its listener's queue was full");
            }
        }
    }

    /** Writes {@code bytes} whole: a request of a few hundred bytes, which the socket's buffer takes at once. */
    public void send(byte[] bytes) throws IOException {
        long written = calls.writeAll(fd, bytes);
        if (written < 0) {
            throw new IOException(Errno.words(written));
        }
    }

    /**
     * Reads what the peer wrote into {@code into}, waiting for it until {@code deadline} ({@link System#nanoTime}):
     * how many bytes; -1 once the peer closed its end; 0 when the deadline passed first.
     */
    public int receive(byte[] into, long deadline) throws IOException {
        if (in == null || in.size() != into.length) {
            in = NativeBuffer.allocate(calls.syscalls(), into.length);
        }
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return 0;
            }
            int ready = calls.awaitReadable(fd, left);
            if (ready == 0 || ready == -Errno.EINTR) {
                continue;
            }
            if (ready < 0) {
                throw new IOException(Errno.words(ready));
            }
            long read = calls.read(fd, in);
            if (read == 0) {
                return -1;
            }
            if (read == -Errno.EINTR || read == -Errno.EAGAIN) {
                continue;
            }
            if (read < 0) {
                throw new IOException(Errno.words(read));
            }
            in.buffer().get(0, into, 0, (int) read);
            return (int) read;
        }
    }

    @Override
    public void close() {
        calls.close(fd);
    }
}
