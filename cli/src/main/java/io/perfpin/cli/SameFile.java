package io.perfpin.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * Which file a path names, so that two spellings of one file (a relative and an absolute path, a hard link, a path
 * through a linked directory) compare equal and two files do not: its device and inode where it is there; else, for
 * a file yet to be made, its directory's device and inode with its name; else the path made absolute and normal.
 */
final class SameFile {
    private SameFile() {}

    static Object of(Path path) {
        try {
            Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
            if (key != null) {
                return key;
            }
        } catch (IOException notThere) {
            // named by where it will be made
        }
        Path absolute = path.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent != null && absolute.getFileName() != null) {
            try {
                Object directory =
                        Files.readAttributes(parent, BasicFileAttributes.class).fileKey();
                if (directory != null) {
                    return List.of(directory, absolute.getFileName().toString());
                }
            } catch (IOException noDirectory) {
                // named by its path
            }
        }
        return absolute;
    }
}
