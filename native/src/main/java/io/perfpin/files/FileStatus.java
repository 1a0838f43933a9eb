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
        return new FileStatus(
                (Integer) a.get("uid"), (Integer) a.get("mode"), a.get("fileKey"), (Long) a.get("dev"), (Long)
                        a.get("ino"));
    }

    boolean isSymbolicLink() {
        return (mode & FileStat.S_IFMT) == FileStat.S_IFLNK;
    }

    /** Whether {@code status}, what {@code statx} says of a descriptor, is this very file. */
    boolean sameFileAs(FileStat status) {
        return inode == status.inode() && device() == status.device();
    }

    /** The device as {@code statx} gives it: the major number in the high 32 bits, the minor in the low. */
    long device() {
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & 0xfffff000L);
        long minor = (dev & 0xff) | ((dev >>> 12) & 0xffffff00L);
        return major << 32 | minor;
    }

    /** Whether perfpin trusts this directory on the way to its files ({@link EffectiveUser#trustsDirectory}). */
    boolean trustedDirectory() {
        return EffectiveUser.trustsDirectory(uid, mode, device(), inode);
    }

    boolean isDirectory() {
        return (mode & FileStat.S_IFMT) == FileStat.S_IFDIR;
    }

    boolean isRegularFile() {
        return (mode & FileStat.S_IFMT) == FileStat.S_IFREG;
    }

    /** The permission bits, sticky, setuid and setgid included. */
    int permissions() {
        return mode & 07777;
    }

    /** Whether users other than the owner may create, rename or remove entries in this directory. */
    boolean othersMayReplaceEntries() {
        return FileStat.othersMayReplaceEntries(mode);
    }

    /** The kind in words, for messages: "a symbolic link", "a FIFO", ... */
    String kind() {
        return FileStat.kindOf(mode);
    }

    static String octal(int permissions) {
        return String.format("%04o", permissions);
    }
}
