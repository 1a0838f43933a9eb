package io.perfpin.jvm;

import io.perfpin.files.PathWalk;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.FileStat;
import io.perfpin.nativeio.NativeException;
import io.perfpin.nativeio.ThreadCredentials;
import io.perfpin.nativeio.UnixConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;

/**
 * The files of a target process, reached as the target itself reaches them. Its root and working directory are
 * held as descriptors ({@code /proc/PID/root}, {@code /proc/PID/cwd}), so every path means what it means inside
 * the target's mount namespace, a container's included; every path is walked below that root with no link followed
 * ({@link PathWalk#inRoot}), whoever made the link; and every step runs on a helper thread with the target's uid,
 * gid and groups ({@link ThreadCredentials}), so perfpin, root or not, opens, creates and connects to nothing the
 * target could not, and what it creates belongs to the target. A file is located {@code O_PATH} and checked with
 * fstat (kind, owner) before it is read, so a FIFO or device planted in its place is never opened.
 */
final class TargetFiles implements AutoCloseable {
    /** Each step is a handful of system calls; one that takes this long is stuck (a hung FUSE mount, say). */
    static final Duration STEP_DEADLINE = Duration.ofSeconds(5);
    /** The names of a directory read at most: a /tmp holds dozens, and each may cost a step. */
    static final int MAX_ENTRIES = 10_000;

    private final FileCalls calls;
    private final long pid;
    private final ProcStatus target;
    private final String process;
    private final int rootFd;
    private final int cwdFd;
    /** The target's pidfd, which names it alone whatever takes its pid later; -1 where the kernel has none. */
    private final int pidfd;
    /** Its start time when its directories were opened, which the start time read after them matched. */
    private final OptionalLong started;
    /** A step that outlived its deadline may still use the descriptors: then they are never closed, not reused. */
    private volatile boolean abandoned;
    /** What {@link #install} made below the target's {@code /tmp}, in the order it made them. */
    private final List<Made> made = new ArrayList<>();

    /** A directory or file that {@link #install} made: {@code dir} below /tmp, or {@code name} in it. */
    private record Made(String dir, String name, FileStat status) {}

    private TargetFiles(
            FileCalls calls, long pid, ProcStatus target, int rootFd, int cwdFd, int pidfd, OptionalLong started) {
        this.calls = calls;
        this.pid = pid;
        this.target = target;
        this.process = "process " + pid + " (" + target.command() + ")";
        this.rootFd = rootFd;
        this.cwdFd = cwdFd;
        this.pidfd = pidfd;
        this.started = started;
    }

    /**
     * Holds the root and working directory of process {@code pid}, whose status was {@code target}, and a pidfd of it.
     *
     * @throws IOException when they cannot be opened (the process is gone, or not ours to inspect)
     */
    static TargetFiles open(long pid, ProcStatus target) throws IOException {
        FileCalls calls = FileCalls.ofProcess();
        OptionalLong started = ThreadStartTime.of(pid, (int) pid);
        int pidfd = calls.pidfdOpen(pid);
        if (pidfd == -Errno.ESRCH) {
            throw new IOException("process " + pid + " exited while perfpin opened its files");
        }
        // Any other refusal is a kernel without pidfds (ENOSYS, before Linux 5.3) or a seccomp filter older than them
        // (EPERM: Docker before 20.10): the target is then signalled by pid, as before pidfds.
        pidfd = Math.max(pidfd, -1);
        int flags = FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_CLOEXEC;
        int root = calls.openat(FileCalls.AT_FDCWD, "/proc/" + pid + "/root", flags, 0);
        if (root < 0) {
            if (pidfd >= 0) {
                calls.close(pidfd);
            }
            throw new IOException("cannot open the root directory of process " + pid + ": " + Errno.words(root));
        }
        // Only for the attach trigger, which may also go in /tmp: a working directory we cannot see is no failure.
        int cwd = calls.openat(FileCalls.AT_FDCWD, "/proc/" + pid + "/cwd", flags, 0);
        TargetFiles files = new TargetFiles(calls, pid, target, root, cwd, pidfd, started);
        // The kernel reuses pids: these must be the directories (and the pidfd) of the process whose status was read
        // before.
        if (started.isEmpty() || !started.equals(ThreadStartTime.of(pid, (int) pid))) {
            files.close();
            throw new IOException("process " + pid + " exited while perfpin opened its files");
        }
        return files;
    }

    ProcStatus target() {
        return target;
    }

    /**
     * Sends {@code signal} to the target through its pidfd, which no process that took its pid since can receive:
     * 0, or -errno (-ESRCH once it has ended); -ENOSYS where no pidfd could be opened (a kernel before Linux 5.3, or a
     * seccomp filter that refuses it).
     */
    int signal(int signal) {
        return pidfd < 0 ? -Errno.ENOSYS : calls.pidfdSendSignal(pidfd, signal);
    }

    /** Whether the pid still names the target: its start time is the one it had when its files were opened. */
    boolean stillTheTarget() {
        return started.equals(ThreadStartTime.of(pid, (int) pid));
    }

    /** Whether the target has this machine's users: then its uid has the name this machine gives it. */
    boolean sharesUserNamespace() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/user"))
                    .equals(Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/user")));
        } catch (IOException e) {
            return false;
        }
    }

    /** The name this machine's user database gives the target's uid; empty when it has none. */
    Optional<String> hostUserName() {
        return HostUsers.name(calls, target.effectiveUid());
    }

    /** The target's working directory, as the kernel names it; "/" when it cannot say. */
    String workingDirectory() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/" + pid + "/cwd")).toString();
        } catch (IOException e) {
            return "/";
        }
    }

    /**
     * The uid that is root in the target's user namespace, as this machine numbers it: 0 where it shares this
     * machine's users; else the uid its {@code uid_map} maps to 0 there, -1 when none is.
     */
    int namespaceRoot() {
        try (java.io.InputStream in = Files.newInputStream(Path.of("/proc/" + pid + "/uid_map"))) {
            for (String line :
                    new String(in.readNBytes(1 << 16), java.nio.charset.StandardCharsets.US_ASCII).split("\n")) {
                String[] fields = line.strip().split("\\s+");
                if (fields.length == 3 && fields[0].equals("0")) {
                    return Integer.parseUnsignedInt(fields[1]);
                }
            }
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Whether the target sees the file system as perfpin does, so that a path names the same file for both: the same
     * mount namespace, and the same root directory. A process under chroot(2) shares the namespace, but resolves every
     * absolute path below its own root, where other users may have made what perfpin's path names.
     */
    boolean sharesFileSystemView() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/mnt"))
                            .equals(Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/mnt")))
                    && calls.fstat(rootFd).sameFileAs(calls.statx(FileCalls.AT_FDCWD, "/", 0));
        } catch (IOException | NativeException e) {
            return false; // cannot tell: as if not
        }
    }

    /** "process PID (command)", for messages. */
    String process() {
        return process;
    }

    /** How a path of the target's is shown to the user: as the target names it, with the process it belongs to. */
    String shown(String path) {
        return path + " of " + process;
    }

    /** What is at {@code path}, a link itself rather than what it names; empty when nothing is. */
    Optional<FileStat> status(String path) throws IOException {
        return asTarget(() -> {
            PathWalk.Entry entry;
            try {
                entry = walk().parent(path);
            } catch (java.nio.file.NoSuchFileException e) {
                return Optional.<FileStat>empty();
            }
            try {
                return Optional.of(calls.statx(entry.dirFd(), entry.name(), FileCalls.AT_SYMLINK_NOFOLLOW));
            } catch (NativeException e) {
                if (e.errno() == Errno.ENOENT) {
                    return Optional.<FileStat>empty();
                }
                throw new IOException("cannot inspect " + shown(path) + ": " + Errno.words(e.errno()));
            } finally {
                calls.close(entry.dirFd());
            }
        });
    }

    /**
     * The regular file at {@code path}, owned by the target's user, open for reading.
     *
     * @throws java.nio.file.NoSuchFileException when nothing is there
     * @throws IOException                       when something else is, or it cannot be opened
     */
    FileChannel openForReading(String path) throws IOException {
        return asTarget(() -> {
            int located = locate(path);
            try {
                FileStat status = calls.fstat(located);
                if (status.uid() != target.effectiveUid()) {
                    throw new IOException(shown(path) + " belongs to uid " + status.uid() + ", not to the process's"
                            + " user (uid " + target.effectiveUid() + "): perfpin reads only that user's files there");
                }
                int fd = PathWalk.reopen(calls, located, FileCalls.O_RDONLY, shown(path));
                try {
                    return PathWalk.channel(fd, Set.of(StandardOpenOption.READ));
                } finally {
                    calls.close(fd);
                }
            } finally {
                calls.close(located);
            }
        });
    }

    /** At most {@code limit} bytes of the regular file at {@code path}, as {@link #openForReading} opens it. */
    byte[] read(String path, int limit) throws IOException {
        try (FileChannel in = openForReading(path)) {
            ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(limit, in.size()));
            while (bytes.hasRemaining() && in.read(bytes) > 0) {
                // a file that shrinks meanwhile ends the loop
            }
            return java.util.Arrays.copyOf(bytes.array(), bytes.position());
        }
    }

    /** The names in directory {@code path}; empty when it is not there. */
    List<String> list(String path) throws IOException {
        return asTarget(() -> {
            int located;
            try {
                located = locate(path);
            } catch (java.nio.file.NoSuchFileException e) {
                return List.<String>of();
            }
            List<String> names = new ArrayList<>();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc/self/fd/" + located))) {
                for (Path entry : entries) {
                    if (names.size() == MAX_ENTRIES) {
                        break; // a directory its users filled on purpose: the names past these are not looked at
                    }
                    names.add(entry.getFileName().toString());
                }
            } finally {
                calls.close(located);
            }
            return names;
        });
    }

    /**
     * What connecting found: the listener's connection; else the socket where nothing listens (refused, left by a
     * killed JVM), or neither where nothing is there.
     */
    record Attempt(UnixConnection connection, FileStat refused) {
        private static final Attempt NOTHING_THERE = new Attempt(null, null);
    }

    /**
     * Connects to the Unix socket at {@code path}, which the target's user must own, as that user: the peer (the
     * JVM) sees the target's own uid and gid, also from inside a user namespace. While the listener's queue is full,
     * it tries again until {@code deadline} ({@link System#nanoTime}).
     */
    Attempt connect(String path, long deadline) throws IOException {
        return asTarget(() -> {
            int located;
            try {
                located = locate(path);
            } catch (java.nio.file.NoSuchFileException e) {
                return Attempt.NOTHING_THERE;
            }
            try {
                FileStat status = calls.fstat(located);
                if (!status.isSocket() || status.uid() != target.effectiveUid()) {
                    throw new IOException(shown(path) + " is " + status.kind() + " of uid " + status.uid() + ", not"
                            + " the attach socket of uid " + target.effectiveUid() + ": refusing to use it");
                }
                UnixConnection connection = UnixConnection.connect(calls, "/proc/self/fd/" + located, deadline);
                return connection != null ? new Attempt(connection, null) : new Attempt(null, status);
            } finally {
                calls.close(located);
            }
        });
    }

    /**
     * Creates the empty file {@code name} (0600, the target's) in the target's working directory when
     * {@code inWorkingDirectory}, else in {@code dir}: false when something is there already.
     *
     * @throws IOException when it cannot be created
     */
    boolean create(boolean inWorkingDirectory, String dir, String name) throws IOException {
        return asTarget(() -> {
            int parent = directory(inWorkingDirectory, dir);
            try {
                int fd = calls.openat(
                        parent,
                        name,
                        FileCalls.O_CREAT
                                | FileCalls.O_EXCL
                                | FileCalls.O_WRONLY
                                | FileCalls.O_NOFOLLOW
                                | FileCalls.O_NONBLOCK
                                | FileCalls.O_CLOEXEC,
                        0600);
                if (fd == -Errno.EEXIST) {
                    return false;
                }
                if (fd < 0) {
                    throw new IOException("cannot create " + name + ": " + Errno.words(fd));
                }
                calls.close(fd);
                return true;
            } finally {
                calls.close(parent);
            }
        });
    }

    /** What is at {@code name} in the working directory or {@code dir}, a link itself; empty when nothing. */
    Optional<FileStat> status(boolean inWorkingDirectory, String dir, String name) throws IOException {
        return asTarget(() -> {
            int parent = directory(inWorkingDirectory, dir);
            try {
                return Optional.of(calls.statx(parent, name, FileCalls.AT_SYMLINK_NOFOLLOW));
            } catch (NativeException e) {
                if (e.errno() == Errno.ENOENT) {
                    return Optional.<FileStat>empty();
                }
                throw new IOException("cannot inspect " + name + ": " + Errno.words(e.errno()));
            } finally {
                calls.close(parent);
            }
        });
    }

    /**
     * Removes {@code name} from the working directory or {@code dir} when it is {@code expected}, unchanged since
     * ({@link FileStat#unchangedSince}: an inode number given back and taken by a file made since is not enough), as
     * the target's user; false when it was not there.
     */
    boolean remove(boolean inWorkingDirectory, String dir, String name, FileStat expected) throws IOException {
        return asTarget(() -> {
            int parent = directory(inWorkingDirectory, dir);
            try {
                FileStat there;
                try {
                    there = calls.statx(parent, name, FileCalls.AT_SYMLINK_NOFOLLOW);
                } catch (NativeException e) {
                    return false;
                }
                if (!there.unchangedSince(expected)) {
                    return false; // replaced since: not the file we meant
                }
                int rc = calls.unlinkat(parent, name, 0);
                if (rc < 0 && rc != -Errno.ENOENT) {
                    throw new IOException("cannot remove " + name + ": " + Errno.words(rc));
                }
                return rc == 0;
            } finally {
                calls.close(parent);
            }
        });
    }

    /**
     * Puts {@code content} in the target's file system as {@code /tmp/<dir>/<name>}, as the target's user, and
     * returns that path as the target names it: for a JVM to load by name what only its own user (and root) can
     * replace. {@code /} and {@code /tmp} must be root's or the user's and not open to others' renames (sticky),
     * {@code dir} is created 0700 and must be the user's alone, and a file already there is used only when its
     * every byte is {@code content}.
     */
    String install(String dir, String name, byte[] content) throws IOException {
        String path = "/tmp/" + dir + "/" + name;
        // A container's own root (a uid of this machine's in a remapped one) owns its / and /tmp: trusted as root.
        int root = namespaceRoot();
        return asTarget(() -> {
            PathWalk walk = walk();
            int tmp = walk.locate("/tmp");
            try {
                for (String trusted : new String[] {"/", "/tmp"}) {
                    FileStat status = calls.fstat(trusted.equals("/") ? rootFd : tmp);
                    if (!status.isDirectory()
                            || status.uid() != 0 && status.uid() != root && status.uid() != target.effectiveUid()
                            || status.othersMayReplaceEntries()) {
                        throw new IOException(shown(trusted) + " is " + status.kind() + " of uid " + status.uid()
                                + ", mode " + String.format("%04o", status.permissions()) + ": another user could"
                                + " replace what perfpin puts below it");
                    }
                }
                int madeDir = calls.mkdirat(tmp, dir, 0700);
                if (madeDir < 0 && madeDir != -Errno.EEXIST) {
                    throw new IOException("cannot create " + shown("/tmp/" + dir) + ": " + Errno.words(madeDir));
                }
                int own = calls.openat(
                        tmp,
                        dir,
                        FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC,
                        0);
                if (own < 0) {
                    throw new IOException("cannot open " + shown("/tmp/" + dir) + ": " + Errno.words(own)
                            + " (not a directory of the process's user's: remove it)");
                }
                try {
                    FileStat status = calls.fstat(own);
                    if (madeDir == 0) {
                        made.add(new Made(dir, null, status));
                    }
                    if (status.uid() != target.effectiveUid() || (status.permissions() & 0022) != 0) {
                        throw new IOException(shown("/tmp/" + dir) + " belongs to uid " + status.uid() + " with mode "
                                + String.format("%04o", status.permissions()) + ", not to uid "
                                + target.effectiveUid() + " alone: its owner (or root) must remove it");
                    }
                    return installIn(own, dir, name, content, path);
                } finally {
                    calls.close(own);
                }
            } finally {
                calls.close(tmp);
            }
        });
    }

    /**
     * {@code name} in directory {@code dir} ({@code dirName} below /tmp) with exactly {@code content}: the one there,
     * or one published now.
     */
    private String installIn(int dir, String dirName, String name, byte[] content, String path) throws IOException {
        if (holds(dir, name, content, path)) {
            return path;
        }
        String temporary = "." + name + "."
                + Long.toHexString(
                        java.util.concurrent.ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE) + ".tmp";
        int fd = calls.openat(
                dir,
                temporary,
                FileCalls.O_CREAT | FileCalls.O_EXCL | FileCalls.O_WRONLY | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC,
                0600);
        if (fd < 0) {
            throw new IOException("cannot create a file in " + shown(path) + "'s directory: " + Errno.words(fd));
        }
        long written;
        try {
            written = calls.writeAll(fd, content);
        } finally {
            calls.close(fd);
        }
        if (written < 0) {
            calls.unlinkat(dir, temporary, 0);
            throw new IOException("cannot write " + shown(path) + ": " + Errno.words(written));
        }
        // Published whole and never over another file: a concurrent installer's copy stays, and is checked below.
        int renamed = calls.renameat2(dir, temporary, dir, name, FileCalls.RENAME_NOREPLACE);
        if (renamed < 0) {
            calls.unlinkat(dir, temporary, 0);
        }
        if (renamed < 0 && renamed != -Errno.EEXIST) {
            throw new IOException("cannot write " + shown(path) + ": " + Errno.words(renamed));
        }
        if (!holds(dir, name, content, path)) {
            throw new IOException(shown(path) + " holds other bytes than this perfpin's agent: its owner (or root)"
                    + " must remove it");
        }
        if (renamed == 0) {
            made.add(new Made(dirName, name, calls.statx(dir, name, FileCalls.AT_SYMLINK_NOFOLLOW)));
        }
        return path;
    }

    /**
     * Removes what {@link #install} made, newest first, each only while it is still what was made (the file unchanged
     * since, the directory the same and empty): an attach that failed leaves the target's files as it found them. What
     * cannot be removed stays, as a copy the next attach uses.
     */
    void removeInstalled() {
        if (made.isEmpty()) {
            return;
        }
        try {
            asTarget(() -> {
                int tmp = walk().locate("/tmp");
                try {
                    for (int i = made.size() - 1; i >= 0; i--) {
                        try {
                            removeMade(tmp, made.get(i));
                        } catch (NativeException e) {
                            // gone already, or not ours to remove: the next one is still tried
                        }
                    }
                } finally {
                    calls.close(tmp);
                }
                return null;
            });
        } catch (IOException e) {
            // left: a copy of the agent's, only the target's user's, that the next attach finds and uses
        }
        made.clear();
    }

    private void removeMade(int tmp, Made what) {
        if (what.name() == null) {
            FileStat there = calls.statx(tmp, what.dir(), FileCalls.AT_SYMLINK_NOFOLLOW);
            if (there.sameFileAs(what.status())) {
                calls.unlinkat(tmp, what.dir(), FileCalls.AT_REMOVEDIR); // ENOTEMPTY: it holds more than ours
            }
            return;
        }
        int dir = calls.openat(
                tmp,
                what.dir(),
                FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC,
                0);
        if (dir < 0) {
            return;
        }
        try {
            if (calls.statx(dir, what.name(), FileCalls.AT_SYMLINK_NOFOLLOW).unchangedSince(what.status())) {
                calls.unlinkat(dir, what.name(), 0);
            }
        } finally {
            calls.close(dir);
        }
    }

    /** Whether {@code name} is a regular file of the target's user with exactly {@code content}. */
    private boolean holds(int dir, String name, byte[] content, String path) throws IOException {
        int located = calls.openat(dir, name, FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC, 0);
        if (located == -Errno.ENOENT) {
            return false;
        }
        if (located < 0) {
            throw new IOException("cannot open " + shown(path) + ": " + Errno.words(located));
        }
        try {
            FileStat status = calls.fstat(located);
            if (!status.isRegularFile() || status.uid() != target.effectiveUid() || status.size() != content.length) {
                return false;
            }
            int fd = PathWalk.reopen(calls, located, FileCalls.O_RDONLY, shown(path));
            try (FileChannel in = PathWalk.channel(fd, Set.of(StandardOpenOption.READ))) {
                ByteBuffer bytes = ByteBuffer.allocate(content.length);
                while (bytes.hasRemaining() && in.read(bytes) > 0) {
                    // until the whole length is read
                }
                return !bytes.hasRemaining() && java.util.Arrays.equals(bytes.array(), content);
            } finally {
                calls.close(fd);
            }
        } finally {
            calls.close(located);
        }
    }

    /** Runs {@code step} with the target's rights. */
    <T> T asTarget(Callable<T> step) throws IOException {
        try {
            return ThreadCredentials.callAs(
                    calls.syscalls(),
                    target.effectiveUid(),
                    target.effectiveGid(),
                    target.groups(),
                    STEP_DEADLINE,
                    step);
        } catch (IOException e) {
            throw e;
        } catch (NativeException e) {
            // the helper could not take the target's ids: a process of another user's, for a perfpin not root
            throw new IOException("cannot reach the files of " + process + " as uid " + target.effectiveUid() + ": "
                    + e.getMessage());
        } catch (TimeoutException e) {
            abandoned = true;
            throw new IOException("the files of " + process + " did not answer within " + STEP_DEADLINE.toSeconds()
                    + " s (a file system that hangs?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reaching the files of " + process);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** A walk below the target's root; for steps that run in {@link #asTarget}. */
    PathWalk walk() {
        return PathWalk.inRoot(calls, rootFd);
    }

    /** An {@code O_PATH} descriptor of {@code path} below the target's root; NoSuchFileException when absent. */
    private int locate(String path) throws IOException {
        PathWalk.Entry entry = walk().parent(path);
        try {
            int fd = calls.openat(
                    entry.dirFd(), entry.name(), FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC, 0);
            if (fd == -Errno.ENOENT) {
                throw new java.nio.file.NoSuchFileException(shown(path));
            }
            if (fd < 0) {
                throw new IOException("cannot open " + shown(path) + ": " + Errno.words(fd));
            }
            return fd;
        } finally {
            calls.close(entry.dirFd());
        }
    }

    private int directory(boolean inWorkingDirectory, String dir) throws IOException {
        if (inWorkingDirectory) {
            if (cwdFd < 0) {
                throw new IOException("the working directory of " + process + " cannot be opened");
            }
            int fd = calls.openat(cwdFd, ".", FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_CLOEXEC, 0);
            if (fd < 0) {
                throw new IOException("cannot open the working directory of " + process + ": " + Errno.words(fd));
            }
            return fd;
        }
        int located = locate(dir);
        FileStat status = calls.fstat(located);
        if (!status.isDirectory()) {
            calls.close(located);
            throw new IOException(shown(dir) + " is " + status.kind() + ", not a directory");
        }
        return located;
    }

    @Override
    public void close() {
        if (pidfd >= 0) {
            calls.close(pidfd); // used by no step, so closed even where one was abandoned
        }
        if (abandoned) {
            return;
        }
        calls.close(rootFd);
        if (cwdFd >= 0) {
            calls.close(cwdFd);
        }
    }
}
