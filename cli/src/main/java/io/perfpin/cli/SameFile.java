package io.perfpin.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Which file a path names, so that two spellings of one file (a relative and an absolute path, a hard link) compare
 * equal and two files do not: its device and inode where it is there, else the path made absolute and normal.
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
            // named by its path, as it will be made
        }
        return path.toAbsolutePath().normalize();
    }
}
