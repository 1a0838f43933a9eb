package io.perfpin.files;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Why a file could not be read, in words: NoSuchFileException and its kin carry only the path as message, and their
 * toString a class name. For the CLI's messages and the agent's alike.
 */
public final class FileErrors {
    private FileErrors() {}

    /**
     * A stats file that cannot be read, in one line: the reader's own messages name the file and what is wrong
     * with it; the file system's name only the path.
     */
    public static IllegalStateException unreadableStatsFile(Path file, IOException e) {
        return new IllegalStateException("cannot read the stats file: "
                + (e instanceof FileSystemException ? file + ": " + reason(e) : e.getMessage()));
    }

    /** A file a user named that cannot be read, in one line; a refused one's message already names it. */
    public static IllegalStateException unreadable(Path file, IOException e) {
        return new IllegalStateException(
                e instanceof NamedFile.Refused ? e.getMessage() : "cannot read " + file + ": " + reason(e));
    }

    /** "no such file", "permission denied", or what the file system said. */
    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e instanceof FileSystemException && ((FileSystemException) e).getReason() != null
                ? ((FileSystemException) e).getReason()
                : e.getMessage();
    }
}
