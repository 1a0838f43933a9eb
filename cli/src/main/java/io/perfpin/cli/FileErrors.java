package io.perfpin.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/** Why a file could not be read, in words: NoSuchFileException and its kin carry only the path as message. */
final class FileErrors {
    private FileErrors() {
    }

    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e instanceof FileSystemException && ((FileSystemException) e).getReason() != null
                ? ((FileSystemException) e).getReason() : e.getMessage();
    }
}
