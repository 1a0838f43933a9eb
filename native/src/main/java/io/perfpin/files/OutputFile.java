package io.perfpin.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
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
 * Missing parent directories are created 0700; an existing directory's mode is never changed. Every step is
 * taken relative to the parent directory's descriptor ({@code openat}, {@code fstatat}, {@code renameat}), so
 * a link swapped in meanwhile is never followed.
 */
public final class OutputFile {
    private static final Set<OpenOption> NEW_FILE = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    private static final Set<OpenOption> READ_NO_LINK = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

    private OutputFile() {
    }

    /**
     * @return the new, empty file, open for reading and writing
     * @throws IOException one line naming the file and why it cannot be written
     */
    public static FileChannel create(Path file) throws IOException {
        return create(file, false).orElseThrow();
    }

    /**
     * As {@link #create}, for a file that one process at a time writes: the new file is locked ({@code fcntl}
     * write lock, which the kernel drops when the process ends) for as long as the channel is open, and a regular
     * file there that another process holds locked is left as it is. Empty then: that process writes it now.
     *
     * <p>Checking the lock and replacing the file are two steps: of two processes that start at the same moment
     * with one file, both may take it. A process that starts another after taking its file (a JVM launching
     * JVMs with its own options) always finds it locked.
     */
    public static Optional<FileChannel> createUnlessLocked(Path file) throws IOException {
        return create(file, true);
    }

    private static Optional<FileChannel> create(Path file, boolean locking) throws IOException {
        Path absolute = file.toAbsolutePath();
        Path parent = absolute.getParent();
        Path name = absolute.getFileName();
        if (parent == null || name == null || name.toString().equals(".") || name.toString().equals("..")) {
            throw new IOException(file + " is a directory, not a file name");
        }
        KernelFileSystems.refuse(file, parent);
        if (!Files.exists(parent)) {
            Files.createDirectories(parent, PosixFilePermissions.asFileAttribute(OwnedDirectory.Access.PRIVATE
                    .directoryPermissions));
        }
        DirectoryStream<Path> stream;
        try {
            stream = Files.newDirectoryStream(parent);
        } catch (java.nio.file.NotDirectoryException e) {
            throw new IOException(parent + " is not a directory, so " + file + " cannot be written");
        }
        if (!(stream instanceof SecureDirectoryStream)) {
            stream.close();
            throw new IOException("this JDK cannot open files relative to a directory descriptor");
        }
        try (SecureDirectoryStream<Path> dir = (SecureDirectoryStream<Path>) stream) {
            for (int attempt = 0; ; attempt++) {
                PosixFileAttributes existing = statusAt(dir, name);
                FileChannel channel;
                if (existing == null) {
                    try {
                        channel = create(dir, name);
                    } catch (FileAlreadyExistsException raced) {
                        if (attempt == 3) {
                            throw new IOException(file + " keeps being created by someone else: name another file");
                        }
                        continue;
                    }
                } else if (locking && existing.isRegularFile() && lockedByAnother(dir, name)) {
                    return Optional.empty();
                } else {
                    channel = replace(dir, name, existing, absolute);
                }
                return Optional.of(locking ? locked(channel) : channel);
            }
        }
    }

    private static FileChannel replace(SecureDirectoryStream<Path> dir, Path name, PosixFileAttributes existing,
                                       Path file) throws IOException {
        if (!existing.isRegularFile()) {
            throw new IOException(file + " is " + kind(file) + ", not a regular file: perfpin writes only a new"
                    + " file, or replaces one of yours");
        }
        Path temporary = null;
        FileChannel channel = null;
        for (int attempt = 0; channel == null; attempt++) {
            temporary = name.resolveSibling("." + name + ".perfpin-" + Long.toHexString(
                    ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE));
            try {
                channel = create(dir, temporary);
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) {
                    throw e;
                }
            }
        }
        try {
            // The new file's owner is this user by construction: the existing one must have the same.
            if (!existing.owner().equals(statusAt(dir, temporary).owner())) {
                throw new IOException(file + " belongs to " + existing.owner().getName() + ": perfpin replaces only"
                        + " files of yours; name a new file");
            }
            dir.move(temporary, dir, name);
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            try {
                dir.deleteFile(temporary);
            } catch (IOException ignored) {
                // nothing more to undo
            }
            throw e;
        }
    }

    /** Whether another process holds a write lock on the regular file {@code name}: a shared lock would wait. */
    private static boolean lockedByAnother(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        try (FileChannel existing = (FileChannel) dir.newByteChannel(name, READ_NO_LINK)) {
            FileLock shared = existing.tryLock(0, Long.MAX_VALUE, true);
            if (shared == null) {
                return true;
            }
            shared.release();
            return false;
        } catch (OverlappingFileLockException thisProcess) {
            return true; // this JVM writes it already
        } catch (NoSuchFileException raced) {
            return false;
        }
    }

    private static FileChannel locked(FileChannel channel) throws IOException {
        try {
            // A file just made or renamed into place: no other process has had a reason to lock it.
            channel.tryLock();
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static FileChannel create(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        return (FileChannel) dir.newByteChannel(name, NEW_FILE,
                PosixFilePermissions.asFileAttribute(OwnedDirectory.Access.PRIVATE.filePermissions));
    }

    /** {@code fstatat} without following a link; null when nothing is there. */
    private static PosixFileAttributes statusAt(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        try {
            return dir.getFileAttributeView(name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** In words, for the message only: read by path, it decides nothing. */
    private static String kind(Path file) {
        try {
            return FileStatus.of(file).kind();
        } catch (IOException e) {
            return "not a regular file";
        }
    }
}
