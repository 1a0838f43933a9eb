package io.perfpin.files;

import io.perfpin.nativeio.FileStat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * What {@code lstat} says of a path: its kind, owner and mode, never those of a link's target. Its file key
 * (device and inode) is compared with the {@code fstat} of a descriptor opened on the same path, so that what
 * was checked is what was opened.
 */
final class FileStatus {
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final int S_IFLNK = 0120000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFCHR = 0020000;
    static final int STICKY = 01000;

    final int uid;
    final int mode;
    final Object fileKey;
    /** glibc's dev_t: major in bits 8-19 and 44-63, minor in bits 0-7 and 20-43. */
    final long dev;
    final long inode;

    private FileStatus(int uid, int mode, Object fileKey, long dev, long inode) {
        this.uid = uid;
        this.mode = mode;
        this.fileKey = fileKey;
        this.dev = dev;
        this.inode = inode;
    }

    /** @throws NoSuchFileException when nothing is there */
    static FileStatus of(Path path) throws IOException {
        Map<String, Object> a = Files.readAttributes(path, "unix:uid,mode,fileKey,dev,ino", LinkOption.NOFOLLOW_LINKS);
        return new FileStatus((Integer) a.get("uid"), (Integer) a.get("mode"), a.get("fileKey"), (Long) a.get("dev"),
                (Long) a.get("ino"));
    }

    boolean isSymbolicLink() {
        return (mode & S_IFMT) == S_IFLNK;
    }

    /** Whether {@code status}, what {@code statx} says of a descriptor, is this very file. */
    boolean sameFileAs(FileStat status) {
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & 0xfffff000L);
        long minor = (dev & 0xff) | ((dev >>> 12) & 0xffffff00L);
        return inode == status.inode() && (major << 32 | minor) == status.device();
    }

    boolean isDirectory() {
        return (mode & S_IFMT) == S_IFDIR;
    }

    boolean isRegularFile() {
        return (mode & S_IFMT) == S_IFREG;
    }

    /** The permission bits, sticky, setuid and setgid included. */
    int permissions() {
        return mode & 07777;
    }

    /** Whether users other than the owner may create, rename or remove entries in this directory. */
    boolean othersMayReplaceEntries() {
        return (mode & 0022) != 0 && (mode & STICKY) == 0;
    }

    /** The kind in words, for messages: "a symbolic link", "a FIFO", ... */
    String kind() {
        switch (mode & S_IFMT) {
            case S_IFREG:
                return "a regular file";
            case S_IFDIR:
                return "a directory";
            case S_IFLNK:
                return "a symbolic link";
            case S_IFCHR:
                return "a character device";
            case S_IFBLK:
                return "a block device";
            case S_IFSOCK:
                return "a socket";
            default:
                return "a FIFO";
        }
    }

    static String octal(int permissions) {
        return String.format("%04o", permissions);
    }
}
