package io.perfpin.nativeio;

/** The errno values perfpin meets, with their symbolic names (x86-64 and arm64 Linux numbering). */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EXDEV = 18;
    public static final int ENODEV = 19;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int ENOSPC = 28;
    public static final int EPIPE = 32;
    public static final int ENOSYS = 38;
    public static final int ENOTEMPTY = 39;
    public static final int ENAMETOOLONG = 36;
    public static final int ELOOP = 40;
    public static final int EOPNOTSUPP = 95;
    public static final int ECONNRESET = 104;
    public static final int ECONNREFUSED = 111;

    private static final String[] NAMES = new String[112];

    static {
        NAMES[EPERM] = "EPERM";
        NAMES[ENOENT] = "ENOENT";
        NAMES[ESRCH] = "ESRCH";
        NAMES[EINTR] = "EINTR";
        NAMES[EIO] = "EIO";
        NAMES[ENXIO] = "ENXIO";
        NAMES[E2BIG] = "E2BIG";
        NAMES[EBADF] = "EBADF";
        NAMES[EAGAIN] = "EAGAIN";
        NAMES[ENOMEM] = "ENOMEM";
        NAMES[EACCES] = "EACCES";
        NAMES[EFAULT] = "EFAULT";
        NAMES[EBUSY] = "EBUSY";
        NAMES[EEXIST] = "EEXIST";
        NAMES[EXDEV] = "EXDEV";
        NAMES[ENODEV] = "ENODEV";
        NAMES[ENOTDIR] = "ENOTDIR";
        NAMES[EISDIR] = "EISDIR";
        NAMES[EINVAL] = "EINVAL";
        NAMES[ENFILE] = "ENFILE";
        NAMES[EMFILE] = "EMFILE";
        NAMES[ENOSPC] = "ENOSPC";
        NAMES[EPIPE] = "EPIPE";
        NAMES[ENOSYS] = "ENOSYS";
        NAMES[ENOTEMPTY] = "ENOTEMPTY";
        NAMES[ENAMETOOLONG] = "ENAMETOOLONG";
        NAMES[ELOOP] = "ELOOP";
        NAMES[EOPNOTSUPP] = "EOPNOTSUPP";
        NAMES[ECONNRESET] = "ECONNRESET";
        NAMES[ECONNREFUSED] = "ECONNREFUSED";
    }

    private Errno() {}

    /** The symbolic name of an errno, positive or negated: {@code name(-2)} is "ENOENT". */
    public static String name(long errno) {
        long e = Math.abs(errno);
        String name = e < NAMES.length ? NAMES[(int) e] : null;
        return name != null ? name : "errno " + e;
    }

    /** What a failed file call means, in words for a message: "no such file", "permission denied", ... */
    public static String words(long errno) {
        return switch ((int) Math.abs(errno)) {
            case ENOENT -> "no such file or directory";
            case EACCES, EPERM -> "permission denied";
            case ENOTDIR -> "not a directory";
            case EISDIR -> "a directory";
            case EEXIST -> "already exists";
            case ELOOP -> "a symbolic link";
            case ENAMETOOLONG -> "file name too long";
            case ENOSPC -> "no space left on the device";
            case EMFILE, ENFILE -> "too many open files";
            case EXDEV -> "a link or mount point that leads out of its root";
            case ECONNREFUSED -> "connection refused";
            case ECONNRESET, EPIPE -> "connection reset by peer";
            default -> name(errno);
        };
    }

    /** Throws a {@link NativeException} for a negative result, returns it otherwise. */
    public static long check(long result, String call) {
        if (result < 0) {
            throw new NativeException(call, (int) -result);
        }
        return result;
    }
}
