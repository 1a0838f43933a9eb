package io.perfpin.files;

import io.perfpin.files.UntrustedPathException.Reason;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.FileStat;
import io.perfpin.nativeio.NativeException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

/**
 * Opens a path the way perfpin opens every path: component by component from a trusted directory descriptor, each
 * step an {@code openat} with {@code O_NOFOLLOW}, so that no name is resolved by the kernel behind perfpin's back.
 *
 * <p>Two kinds of walk:
 * <ul>
 *   <li>{@link #inRoot}: inside another process's root ({@code /proc/PID/root}), as {@code openat2}'s
 *       {@code RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS} would: {@code ..} never climbs above
 *       that root, and no link is followed, whoever made it. Used for a target's files, whose every link the
 *       target's users control.</li>
 *   <li>{@link #onHost}: a path a user named, from {@code /} (or the working directory). A link is followed only
 *       where root or the user ({@link EffectiveUser}) owns both the link and the directory it is in, the rule
 *       {@code fs.protected_symlinks} applies in sticky directories, here applied everywhere whatever the sysctl
 *       says: a link another user planted is refused.</li>
 * </ul>
 * Walked rather than handed to {@code openat2}: one walk serves both kinds on every kernel perfpin runs on, and no
 * {@code RESOLVE_*} flag says "follow a link only where root or this user owns it".
 *
 * <p>The file itself is opened as {@code O_PATH} ({@link #locate}), which opens no device and waits for no FIFO; its
 * kind and owner are read from that descriptor, and only then is it reopened for reading ({@link #reopen}):
 * through {@code /proc/self/fd}, which names exactly the file checked, whatever has been renamed meanwhile.
 */
public final class PathWalk {
    /** As the kernel's own limit on links in one lookup. */
    private static final int MAX_LINKS = 40;

    private static final int DIR_FLAGS =
            FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC;
    private static final int PRIVATE_DIRECTORY = 0700;

    private final FileCalls calls;
    private final int rootFd;
    private final boolean jailed;
    private final int trustedUid;

    private PathWalk(FileCalls calls, int rootFd, boolean jailed, int trustedUid) {
        this.calls = calls;
        this.rootFd = rootFd;
        this.jailed = jailed;
        this.trustedUid = trustedUid;
    }

    /** Walks below {@code rootFd} (a directory descriptor the caller keeps open), following no link. */
    public static PathWalk inRoot(FileCalls calls, int rootFd) {
        return new PathWalk(calls, rootFd, true, -1);
    }

    /** Walks this machine's paths, following links of root's and this user's only. */
    public static PathWalk onHost(FileCalls calls) {
        return new PathWalk(calls, -1, false, EffectiveUser.uid());
    }

    /**
     * A directory descriptor and a name in it: where a file is, or is to be created; where {@code complete} is false
     * ({@link #parentToCheck}), the name is that of the first directory on the way that is not there.
     */
    public record Entry(int dirFd, String name, String shownAs, boolean complete) {}

    /**
     * An {@code O_PATH} descriptor of what {@code path} names; the caller closes it.
     *
     * @throws NoSuchFileException when a component is missing
     * @throws IOException one line: the component that is missing, a link not followed, not a directory, ...
     */
    public int locate(String path) throws IOException {
        Entry entry = parent(path);
        try {
            return locateIn(entry);
        } finally {
            calls.close(entry.dirFd());
        }
    }

    /**
     * The directory that holds the last component of {@code path}, opened {@code O_PATH}, and that component's
     * name; the caller closes the descriptor. The last component is not looked at: to create a file there
     * ({@code O_CREAT | O_EXCL}), or to look with {@link #locateIn}.
     */
    public Entry parent(String path) throws IOException {
        return parent(path, false, false);
    }

    /**
     * As {@link #parent}, for a file perfpin is to write: missing directories on the way are created 0700
     * ({@code mkdirat} in the directory just walked; an existing one is taken as it is, its mode unchanged), and
     * the last component is not followed when it is a link: the caller, which opens it {@code O_NOFOLLOW},
     * refuses it.
     */
    public Entry parentToWrite(String path) throws IOException {
        return parent(path, true, false);
    }

    /**
     * As {@link #parentToWrite}, creating nothing: for a check before the file is written. Where a directory on the
     * way is missing, the walk stops in its parent, the last that is there, and says so ({@link Entry#complete}).
     */
    public Entry parentToCheck(String path) throws IOException {
        return parent(path, true, true);
    }

    private Entry parent(String path, boolean writing, boolean checking) throws IOException {
        Deque<String> left = components(path);
        if (left.isEmpty()) {
            throw new IOException(path + " is a directory, not a file");
        }
        String last = left.removeLast();
        Walk walk = new Walk(path, startFor(path), writing && !checking, checking);
        try {
            if (!walk.directoriesThere(left)) {
                return new Entry(walk.take(), walk.missing, path, false);
            }
            // On the host the last component may itself be a link to follow: resolved until it is not.
            while (!jailed && !writing) {
                checkFileName(path, last);
                int fd = calls.openat(
                        walk.current(), last, FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC, 0);
                if (fd < 0) {
                    break; // absent (to be created), or not ours to see: the caller's open says which
                }
                FileStat status;
                try {
                    status = calls.fstat(fd);
                } finally {
                    calls.close(fd);
                }
                if (!status.isSymbolicLink()) {
                    break;
                }
                Deque<String> target = walk.followed(last);
                if (target.isEmpty()) {
                    throw new IOException(path + " names a directory, not a file");
                }
                last = target.removeLast();
                walk.directories(target);
            }
            checkFileName(path, last);
            return new Entry(walk.take(), last, path, true);
        } finally {
            walk.close();
        }
    }

    private static void checkFileName(String path, String name) throws IOException {
        if (name.equals(".") || name.equals("..")) {
            throw new IOException(path + " names a directory, not a file");
        }
    }

    /** An {@code O_PATH} descriptor of {@code entry}'s file, which must not be a link. */
    private int locateIn(Entry entry) throws IOException {
        int fd = calls.openat(
                entry.dirFd(), entry.name(), FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC, 0);
        if (fd == -Errno.ENOENT) {
            throw missing("cannot open " + entry.shownAs());
        }
        if (fd < 0) {
            throw failure(entry.shownAs(), fd);
        }
        return fd;
    }

    /**
     * Opens the file that the {@code O_PATH} descriptor {@code fd} names again, with {@code flags}
     * ({@code O_RDONLY}, ...): exactly that file, through {@code /proc/self/fd}, never a device or FIFO
     * (checked on {@code fd} first), never blocking.
     */
    public static int reopen(FileCalls calls, int fd, int flags, String shownAs) throws IOException {
        FileStat status = calls.fstat(fd);
        if (!status.isRegularFile()) {
            throw new NotARegularFileException(shownAs + " is " + status.kind() + ", not a regular file");
        }
        int opened = calls.openat(
                FileCalls.AT_FDCWD,
                "/proc/self/fd/" + fd,
                flags | FileCalls.O_NONBLOCK | FileCalls.O_NOCTTY | FileCalls.O_CLOEXEC,
                0);
        if (opened < 0) {
            throw failure(shownAs, opened);
        }
        return opened;
    }

    /**
     * A Java channel on the file that descriptor {@code fd} names, opened through {@code /proc/self/fd}: that
     * file and no other, whatever its name now names. {@code fd} must be one perfpin checked with {@code fstat}:
     * {@code O_PATH} (closing one drops no lock of this process's), or opened {@code O_NONBLOCK}, which, while it
     * stays open, keeps anyone from taking a lease that would make this second open wait.
     */
    public static FileChannel channel(int fd, Set<? extends OpenOption> options) throws IOException {
        return FileChannel.open(Path.of("/proc/self/fd/" + fd), options);
    }

    /** A missing file or component, said as every other failure of a walk is: one line, the message alone. */
    private static NoSuchFileException missing(String what) {
        return new NoSuchFileException(null, null, what + ": " + Errno.words(Errno.ENOENT));
    }

    /** One line for a failed open of {@code shownAs}. */
    public static IOException failure(String shownAs, long errno) {
        return new IOException("cannot open " + shownAs + ": " + Errno.words(errno));
    }

    private int startFor(String path) throws IOException {
        int fd;
        if (jailed) {
            fd = calls.openat(rootFd, ".", DIR_FLAGS, 0);
        } else {
            fd = calls.openat(FileCalls.AT_FDCWD, path.startsWith("/") ? "/" : ".", DIR_FLAGS, 0);
        }
        if (fd < 0) {
            throw failure(path.startsWith("/") || jailed ? "/" : "the working directory", fd);
        }
        return fd;
    }

    private static Deque<String> components(String path) {
        Deque<String> parts = new ArrayDeque<>();
        for (String part : path.split("/")) {
            if (!part.isEmpty()) {
                parts.add(part);
            }
        }
        return parts;
    }

    /** The directories walked so far, innermost last: {@code ..} goes back one, never above the first. */
    private final class Walk implements AutoCloseable {
        private final String path;
        private final boolean creating;
        private final boolean stopAtMissing;
        private final Deque<Integer> dirs = new ArrayDeque<>();
        private int links;
        /** The first directory on the way that {@link #directoriesThere} found missing. */
        private String missing;

        Walk(String path, int start, boolean creating, boolean stopAtMissing) {
            this.path = path;
            this.creating = creating;
            this.stopAtMissing = stopAtMissing;
            dirs.push(start);
        }

        int current() {
            return dirs.peek();
        }

        /** Hands the innermost directory to the caller: it is no longer closed with the walk. */
        int take() {
            return dirs.pop();
        }

        void directories(Deque<String> parts) throws IOException {
            directoriesThere(parts);
        }

        /**
         * Walks {@code parts} as {@link #directories} does; false where one is missing and the walk stops there
         * ({@link #parentToCheck}), named {@link #missing}.
         */
        boolean directoriesThere(Deque<String> parts) throws IOException {
            while (!parts.isEmpty()) {
                String part = parts.removeFirst();
                if (part.equals(".")) {
                    continue;
                }
                if (part.equals("..")) {
                    if (dirs.size() > 1) {
                        calls.close(dirs.pop());
                    } else if (!jailed) {
                        // above "/" is "/"; above the working directory, its real parent
                        int up = calls.openat(current(), "..", DIR_FLAGS, 0);
                        if (up < 0) {
                            throw failure(path, up);
                        }
                        calls.close(dirs.pop());
                        dirs.push(up);
                    }
                    continue;
                }
                int fd =
                        calls.openat(current(), part, FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC, 0);
                if (fd == -Errno.ENOENT && creating) {
                    // 0700 at most, whatever the umask; EEXIST: made meanwhile, and looked at below like any other
                    int made = calls.mkdirat(current(), part, PRIVATE_DIRECTORY);
                    if (made < 0 && made != -Errno.EEXIST) {
                        throw new IOException("cannot create " + path + ": " + part + ": " + Errno.words(made));
                    }
                    fd = calls.openat(
                            current(), part, FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC, 0);
                }
                if (fd == -Errno.ENOENT && stopAtMissing) {
                    missing = part;
                    return false;
                }
                if (fd == -Errno.ENOENT) {
                    throw missing("cannot open " + path + ": " + part);
                }
                if (fd < 0) {
                    throw new IOException("cannot open " + path + ": " + part + ": " + Errno.words(fd));
                }
                FileStat status;
                try {
                    status = calls.fstat(fd);
                } catch (NativeException e) {
                    calls.close(fd);
                    throw new IOException("cannot open " + path + ": " + part + ": " + Errno.words(e.errno()));
                }
                if (status.isDirectory()) {
                    dirs.push(fd);
                    continue;
                }
                calls.close(fd);
                if (!status.isSymbolicLink()) {
                    throw new IOException(
                            "cannot open " + path + ": " + part + " is " + status.kind() + ", not a directory");
                }
                Deque<String> target = followed(part);
                target.addAll(parts);
                parts = target;
            }
            return true;
        }

        /**
         * The components of link {@code name} in the current directory, after checking it may be followed; an
         * absolute link starts again from {@code /}.
         */
        Deque<String> followed(String name) throws IOException {
            if (jailed) {
                throw new IOException("cannot open " + path + ": " + name + " is a symbolic link, and perfpin"
                        + " follows none inside another process's file system");
            }
            if (++links > MAX_LINKS) {
                throw new UntrustedPathException(
                        Reason.TOO_MANY_LINKS, "cannot open " + path + ": too many levels of symbolic links");
            }
            // The link itself, opened once: what is checked is what is read, whatever is renamed meanwhile.
            int linkFd =
                    calls.openat(current(), name, FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC, 0);
            if (linkFd < 0) {
                throw failure(path, linkFd);
            }
            String target;
            try {
                FileStat link = calls.fstat(linkFd);
                FileStat directory = calls.fstat(current());
                if (!link.isSymbolicLink()) {
                    throw new UntrustedPathException(
                            Reason.REPLACED,
                            "cannot open " + path + ": " + name + " was replaced while perfpin opened it");
                }
                if (!EffectiveUser.trusts(link.uid())
                        || !EffectiveUser.trustsDirectory(
                                directory.uid(), directory.mode(), directory.device(), directory.inode())) {
                    throw new UntrustedPathException(
                            Reason.FOREIGN_LINK,
                            "cannot open " + path + ": " + name + " is a symbolic link of "
                                    + EffectiveUser.owner(link.uid()) + " in a directory of uid " + directory.uid()
                                    + "; perfpin follows links only"
                                    + " where root or you (uid " + trustedUid + ") own both");
                }
                target = calls.readlinkat(linkFd, "");
            } finally {
                calls.close(linkFd);
            }
            if (target.startsWith("/")) {
                int root = calls.openat(FileCalls.AT_FDCWD, "/", DIR_FLAGS, 0);
                if (root < 0) {
                    throw failure("/", root);
                }
                close();
                dirs.push(root);
            }
            return components(target);
        }

        @Override
        public void close() {
            while (!dirs.isEmpty()) {
                calls.close(dirs.pop());
            }
        }
    }
}
