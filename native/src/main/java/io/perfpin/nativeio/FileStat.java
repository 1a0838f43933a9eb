package io.perfpin.nativeio;

/**
 * What {@code statx} said of a file: its type and permission bits, owner, size, link count, identity (device and
 * inode), which tell whether two descriptors or a descriptor and a path name one file, and when its inode last changed
 * ({@code stx_ctime}, nanoseconds since the epoch).
 */
public record FileStat(int mode, int uid, int gid, long size, int links, long inode, long device, long changedNanos) {
    public static final int S_IFMT = 0170000;
    public static final int S_IFSOCK = 0140000;
    public static final int S_IFLNK = 0120000;
    public static final int S_IFREG = 0100000;
    public static final int S_IFBLK = 0060000;
    public static final int S_IFDIR = 0040000;
    public static final int S_IFCHR = 0020000;
    public static final int S_IFIFO = 0010000;

    public boolean isRegularFile() {
        return (mode & S_IFMT) == S_IFREG;
    }

    public boolean isDirectory() {
        return (mode & S_IFMT) == S_IFDIR;
    }

    public boolean isSymbolicLink() {
        return (mode & S_IFMT) == S_IFLNK;
    }

    public boolean isSocket() {
        return (mode & S_IFMT) == S_IFSOCK;
    }

    /** The permission bits, sticky, setuid and setgid included. */
    public int permissions() {
        return mode & 07777;
    }

    /** Whether users other than the owner may create, rename or remove entries in this directory. */
    public boolean othersMayReplaceEntries() {
        return othersMayReplaceEntries(mode);
    }

    /** As {@link #othersMayReplaceEntries()}, of a {@code st_mode}: group or other write, and not sticky. */
    public static boolean othersMayReplaceEntries(int mode) {
        return (mode & 0022) != 0 && (mode & 01000) == 0;
    }

    public boolean sameFileAs(FileStat other) {
        return inode == other.inode && device == other.device;
    }

    /**
     * Whether this is {@code earlier}'s file, its inode unchanged since: not one removed and made again under a number
     * the file system gave back (a new file's inode changes as it is made), nor one renamed, linked or chmodded since.
     * Change times come from a clock that may tick only every few ms, so a file made again within the tick of the
     * earlier one's last change would pass: for a file that has stood a while, as a stale socket has, none can.
     */
    public boolean unchangedSince(FileStat earlier) {
        return sameFileAs(earlier) && changedNanos == earlier.changedNanos;
    }

    /** The kind in words, for messages: "a symbolic link", "a FIFO", ... */
    public String kind() {
        return kindOf(mode);
    }

    /** As {@link #kind()}, of a {@code st_mode}. */
    public static String kindOf(int mode) {
        return switch (mode & S_IFMT) {
            case S_IFREG -> "a regular file";
            case S_IFDIR -> "a directory";
            case S_IFLNK -> "a symbolic link";
            case S_IFCHR -> "a character device";
            case S_IFBLK -> "a block device";
            case S_IFSOCK -> "a socket";
            default -> "a FIFO";
        };
    }
}
