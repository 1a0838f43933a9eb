package io.perfpin.files;

import java.io.IOException;

/**
 * A name that perfpin was to read or write as a file, which is a FIFO, a device, a directory or a socket: refused
 * before it is opened, since opening a FIFO waits for a writer and a device is no file of perfpin's. Its message is
 * the user's line; its type is what callers and tests act on.
 */
public final class NotARegularFileException extends IOException {
    private static final long serialVersionUID = 1L;

    public NotARegularFileException(String message) {
        super(message);
    }
}
