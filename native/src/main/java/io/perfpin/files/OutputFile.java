package io.perfpin.files;

import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.FileStat;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A file a user names for perfpin to write (the agent's {@code stats=} and {@code out=}, the CLI's
 * {@code --output} and {@code --record}), opened by one rule:
 * <ul>
 *   <li>nothing there: created 0600 with {@code O_CREAT|O_EXCL|O_NOFOLLOW};</li>
 *   <li>a regular file of this user's: replaced, atomically, by a new 0600 file renamed over it (the old file's
 *       other names, hard links, keep the old content);</li>
 *   <li>anything else (a symbolic link, a device, a FIFO, a socket, a directory, another user's file): refused,
 *       with one line that says what is there.</li>
 * </ul>
 * The directory is reached by {@link PathWalk#parentToWrite}: component by component, a link on the way
 * followed only where root or this user owns it and its directory, so another user's link to a directory of
 * root's never makes root replace root's file there. Missing directories are created 0700; an existing
 * directory's mode is never changed. Every later step ({@code openat}, {@code fstat}, {@code renameat2},
 * {@code unlinkat}) is relative to that directory's descriptor, so a link swapped in meanwhile is never followed.
 */
public final class OutputFile {
    private static final Set<StandardOpenOption> READ_WRITE = Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE);
    private static final int PRIVATE_FILE = 0600;
    /** The longest name of a directory entry, in bytes (NAME_MAX). */
    private static final int MAX_NAME = 255;

    private static final int LOOK = FileCalls.O_PATH | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC;
    /** No link, no device's open routine, no waiting: only a file this call creates is opened for writing. */
    private static final int CREATE = FileCalls.O_RDWR
            | FileCalls.O_CREAT
            | FileCalls.O_EXCL
            | FileCalls.O_NOFOLLOW
            | FileCalls.O_NONBLOCK
            | FileCalls.O_NOCTTY
            | FileCalls.O_CLOEXEC;

    private OutputFile() {}

    /**
     * @return the new, empty file, open for reading and writing
     * @throws IOException one line naming the file, or the component on the way to it, and what is wrong
     */
    public static FileChannel create(Path file) throws IOException {
        return create(file, false).orElseThrow();
    }

    /**
     * As {@link #create}, for a file that one process at a time writes: the new file is locked ({@code fcntl}
     * write lock, which the kernel drops when the process ends) before it takes the name, for as long as the channel
     * is open, and a regular file there that another process holds locked is left as it is. Empty then: that process
     * writes it now.
     *
     * <p>Checking the lock and replacing the file are two steps: of two processes that start at the same moment
     * with one file, both may take it. A process that starts another after taking its file (a JVM launching
     * JVMs with its own options) always finds it locked.
     */
    public static Optional<FileChannel> createUnlessLocked(Path file) throws IOException {
        return create(file, true);
    }

    /**
     * As {@link #create}, as the new file's own descriptor, which the caller closes ({@link FileCalls#close}): for a
     * file written on the application's threads. A {@link FileChannel} closes itself when the thread in one of its
     * calls is interrupted, as an application interrupts its own (a task cancelled); a {@code write(2)} on a
     * descriptor goes on.
     */
    public static int createDescriptor(Path file) throws IOException {
        return create(file, false, descriptor(FileCalls.ofProcess())).orElseThrow();
    }

    /** A new file given as its own descriptor. */
    private static Opened<Integer> descriptor(FileCalls calls) {
        return new Opened<>() {
            @Override
            public Integer of(int fd) {
                return fd;
            }

            @Override
            public void close(Integer fd) {
                calls.close(fd);
            }
        };
    }

    /**
     * Refuses {@code file} as {@link #create} would, and leaves what is there as it is: for a file written only
     * later (a report once there is one to write, a recording its JVM makes), so that a command that fails before
     * never replaced a file of the user's, while a name that cannot be written is still refused at once. The walk
     * is the same but creates nothing (missing directories are made when the file is written), what the name holds
     * is looked at, and a probe file is made beside it, or in the last directory there, and removed, so that a
     * directory this user cannot write into is refused now too.
     */
    public static void check(Path file) throws IOException {
        FileCalls calls = FileCalls.ofProcess();
        inDirectory(file, calls, true, entry -> {
            new InDirectory<>(calls, entry, descriptor(calls)).check();
            return null;
        });
    }

    private static Optional<FileChannel> create(Path file, boolean locking) throws IOException {
        FileCalls calls = FileCalls.ofProcess();
        Optional<FileChannel> channel = create(file, locking, new Opened<FileChannel>() {
            @Override
            public FileChannel of(int fd) throws IOException {
                FileChannel channel;
                try {
                    channel = PathWalk.channel(fd, READ_WRITE);
                } finally {
                    // the channel is open on its own descriptor; closed before the lock, which a close drops
                    calls.close(fd);
                }
                // locked before it is renamed into place: no other process ever sees it there unlocked
                return locking ? locked(channel) : channel;
            }

            @Override
            public void close(FileChannel opened) throws IOException {
                opened.close();
            }
        });
        return channel;
    }

    private static <T> Optional<T> create(Path file, boolean locking, Opened<T> opened) throws IOException {
        FileCalls calls = FileCalls.ofProcess();
        return inDirectory(file, calls, false, entry -> new InDirectory<>(calls, entry, opened).create(locking));
    }

    /**
     * {@code step} in the directory of {@code file}, walked to as every file written is; where {@code checking}, no
     * directory is made, and the step is in the last one there ({@link PathWalk#parentToCheck}).
     */
    private static <T> T inDirectory(Path file, FileCalls calls, boolean checking, Step<T> step) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            KernelFileSystems.refuse(file, parent);
        }
        PathWalk walk = PathWalk.onHost(calls);
        PathWalk.Entry entry = checking ? walk.parentToCheck(file.toString()) : walk.parentToWrite(file.toString());
        try {
            return step.in(entry);
        } finally {
            calls.close(entry.dirFd());
        }
    }

    private interface Step<T> {
        T in(PathWalk.Entry entry) throws IOException;
    }

    /** What a new file's descriptor is given as: a channel, or the descriptor itself. */
    private interface Opened<T> {
        /** Takes {@code fd}, a new file's descriptor, over: closes it where it does not keep it. */
        T of(int fd) throws IOException;

        void close(T opened) throws IOException;
    }

    private record Temporary<T>(String name, T file) {}

    /** The steps taken in the walked directory, all relative to its descriptor. */
    private static final class InDirectory<T> {
        private final FileCalls calls;
        private final int dir;
        private final String name;
        private final String shownAs;
        /** False where {@link #name} is a missing directory on the way, not the file: only the probe is made. */
        private final boolean complete;

        private final Opened<T> opened;

        InDirectory(FileCalls calls, PathWalk.Entry entry, Opened<T> opened) {
            this.calls = calls;
            this.dir = entry.dirFd();
            this.name = entry.name();
            this.shownAs = entry.shownAs();
            this.complete = entry.complete();
            this.opened = opened;
        }

        Optional<T> create(boolean locking) throws IOException {
            for (int attempt = 0; ; attempt++) {
                int existing = calls.openat(dir, name, LOOK, 0);
                T file;
                if (existing == -Errno.ENOENT) {
                    file = createNew(name);
                    if (file == null) {
                        if (attempt == 3) {
                            throw new IOException(shownAs + " keeps being created by someone else: name another file");
                        }
                        continue; // made meanwhile: looked at again
                    }
                } else if (existing < 0) {
                    throw PathWalk.failure(shownAs, existing);
                } else {
                    try {
                        FileStat status = calls.fstat(existing);
                        checkReplaceable(status);
                        if (locking && lockedByAnother(existing)) {
                            return Optional.empty();
                        }
                    } finally {
                        calls.close(existing);
                    }
                    file = replace();
                }
                return Optional.of(file);
            }
        }

        /** What {@link #create} would refuse, refused; what is there is only looked at, the probe removed. */
        void check() throws IOException {
            int existing = complete ? calls.openat(dir, name, LOOK, 0) : -Errno.ENOENT;
            if (existing >= 0) {
                try {
                    checkReplaceable(calls.fstat(existing));
                } finally {
                    calls.close(existing);
                }
            } else if (existing != -Errno.ENOENT) {
                throw PathWalk.failure(shownAs, existing);
            }
            Temporary<T> probe = createTemporary();
            opened.close(probe.file());
            calls.unlinkat(dir, probe.name(), 0);
        }

        private void checkReplaceable(FileStat status) throws IOException {
            if (!status.isRegularFile()) {
                throw new IOException(shownAs + " is " + status.kind() + ", not a regular file: perfpin writes only a"
                        + " new file, or replaces one of yours");
            }
            if (status.uid() != EffectiveUser.uid()) {
                throw new IOException(shownAs + " belongs to uid " + status.uid() + ": perfpin replaces only files of"
                        + " yours (uid " + EffectiveUser.uid() + "); name a new file");
            }
        }

        /** A new file beside the old, renamed over it: the name never holds a partly written file. */
        private T replace() throws IOException {
            Temporary<T> temporary = createTemporary();
            int renamed = calls.renameat2(dir, temporary.name(), dir, name, 0);
            if (renamed < 0) {
                opened.close(temporary.file());
                calls.unlinkat(dir, temporary.name(), 0);
                throw new IOException("cannot replace " + shownAs + ": " + Errno.words(renamed));
            }
            return temporary.file();
        }

        /** A new 0600 file beside the name, under a name of its own that no one had. */
        private Temporary<T> createTemporary() throws IOException {
            for (int attempt = 0; ; attempt++) {
                String random = ".perfpin-"
                        + Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
                String temporary = "." + name + random;
                if (temporary.getBytes(StandardCharsets.UTF_8).length > MAX_NAME) {
                    temporary = random; // beside a name near the limit: still hidden, still perfpin's
                }
                T file = createNew(temporary);
                if (file != null) {
                    return new Temporary<>(temporary, file);
                }
                if (attempt == 100) {
                    throw new IOException(
                            "cannot create a temporary file beside " + shownAs + ": every name tried is taken");
                }
            }
        }

        /** A new 0600 file {@code entry} made now ({@code O_EXCL}), or null when that name is taken. */
        private T createNew(String entry) throws IOException {
            int fd = calls.openat(dir, entry, CREATE, PRIVATE_FILE);
            if (fd == -Errno.EEXIST) {
                return null;
            }
            if (fd < 0) {
                throw PathWalk.failure(shownAs, fd);
            }
            try {
                // made by this open, so ours: the umask may have taken bits, never added any
                return opened.of(fd);
            } catch (IOException | RuntimeException e) {
                calls.unlinkat(dir, entry, 0);
                throw e;
            }
        }

        /**
         * Whether another process holds a write lock on the regular file {@code located} names: a shared lock
         * would wait. Opened from the {@code O_PATH} descriptor whose {@code fstat} was checked.
         */
        private boolean lockedByAnother(int located) throws IOException {
            try (FileChannel existing = PathWalk.channel(located, Set.of(StandardOpenOption.READ))) {
                return OutputFile.lockedByAnother(existing);
            }
        }
    }

    /**
     * Whether a process holds a write lock on the file {@code existing} is open on, as {@link #createUnlessLocked}
     * takes it: another process that writes it now, or this JVM.
     */
    static boolean lockedByAnother(FileChannel existing) throws IOException {
        try {
            FileLock shared = existing.tryLock(0, Long.MAX_VALUE, true);
            if (shared == null) {
                return true;
            }
            shared.release();
            return false;
        } catch (OverlappingFileLockException thisProcess) {
            return true; // this JVM writes it already
        }
    }

    private static FileChannel locked(FileChannel channel) throws IOException {
        try {
            // A file just made, under a name of its own or with O_EXCL: no other process has had a reason to lock it.
            channel.tryLock();
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }
}
