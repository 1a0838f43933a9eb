package io.perfpin.files;

import io.perfpin.files.UntrustedPathException.Reason;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.FileStat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/**
 * A directory of this user's that no one else can change, where perfpin keeps what it creates: private (0700,
 * its files 0600).
 *
 * <p>Opening one never follows a link: each directory perfpin makes is opened with {@code O_NOFOLLOW} from its
 * verified parent ({@code openat} through a {@link SecureDirectoryStream}), and its owner and mode are checked
 * on what was opened (the {@code lstat} of its name must have the file key of the opened descriptor). The
 * parent of the first one must be a {@link TrustedPath}. A directory that exists with another owner, another
 * mode or as anything but a directory is refused, never changed: perfpin changes the mode only of what it has
 * just created. Inside, files are created with {@code O_CREAT|O_EXCL|O_NOFOLLOW}.
 */
public final class OwnedDirectory {
    /** Only its user may use it, and what is in it. */
    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private static final Set<OpenOption> NEW_FILE = Set.of(
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);
    private static final int READ_ONLY =
            FileCalls.O_RDONLY | FileCalls.O_NOFOLLOW | FileCalls.O_NONBLOCK | FileCalls.O_NOCTTY | FileCalls.O_CLOEXEC;
    private static final Set<OpenOption> READ_NO_LINK = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

    private final Path path;
    /** The device and inode checked when it was opened: every later use must find the same directory. */
    private final FileStatus status;

    private OwnedDirectory(Path path, FileStatus status) {
        this.path = path;
        this.status = status;
    }

    /**
     * Opens {@code dir}, creating it (and missing parents) when it is not there. Its parent
     * must be a {@link TrustedPath}.
     *
     * @throws UntrustedPathException when a directory on the way, or {@code dir} itself, is not what it must be;
     *                                the message names it and what is wrong
     */
    public static OwnedDirectory open(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        Path parent = absolute.getParent();
        Path name = absolute.getFileName();
        if (parent == null
                || name == null
                || name.toString().equals(".")
                || name.toString().equals("..")) {
            throw new UntrustedPathException(
                    Reason.NOT_ALLOWED, dir + " cannot be perfpin's directory: name a directory below /");
        }
        Path trustedParent = Files.exists(parent) ? TrustedPath.verify(parent) : open(parent).path;
        return openChild(trustedParent, name.toString());
    }

    /** A directory inside this one, private like it, created when it is not there. */
    public OwnedDirectory directory(String name) throws IOException {
        return openChild(path, checkedName(name));
    }

    private static OwnedDirectory openChild(Path parent, String name) throws IOException {
        Path path = parent.resolve(name);
        boolean created = false;
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) { // the usual case is there: no exception to build
            try {
                Files.createDirectory(path, PosixFilePermissions.asFileAttribute(DIRECTORY));
                created = true;
            } catch (FileAlreadyExistsException raced) {
                // made meanwhile, by another perfpin or by someone else: checked below like any other
            }
        }
        FileStatus status = FileStatus.of(path);
        if (!status.isDirectory()) {
            throw new UntrustedPathException(
                    Reason.NOT_A_DIRECTORY,
                    path + " is " + status.kind() + ", not a directory that perfpin made:"
                            + " remove it, or point perfpin at another directory");
        }
        // Before opening it: another user's private directory refuses the open (EACCES), which says only its name.
        checkOwner(path, status.uid);
        try (SecureDirectoryStream<Path> parentStream = stream(parent);
                SecureDirectoryStream<Path> opened =
                        parentStream.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS)) {
            Object key = opened.getFileAttributeView(BasicFileAttributeView.class)
                    .readAttributes()
                    .fileKey();
            if (!key.equals(status.fileKey)) {
                throw new UntrustedPathException(Reason.REPLACED, path + " was replaced while perfpin opened it");
            }
            int permissions = status.permissions();
            boolean acceptable = (permissions & 0077) == 0 && (permissions & 0700) == 0700;
            if (created && !acceptable) {
                // made by us a moment ago, under a umask that took bits we need
                opened.getFileAttributeView(PosixFileAttributeView.class).setPermissions(DIRECTORY);
            } else if (!acceptable) {
                throw new UntrustedPathException(
                        Reason.OPEN_MODE,
                        path + " has mode " + FileStatus.octal(permissions) + "; perfpin keeps"
                                + " its files in a directory only you can use (0700): chmod 700 " + path
                                + ", or remove it");
            }
            return new OwnedDirectory(path, status);
        }
    }

    private static void checkOwner(Path path, int uid) throws UntrustedPathException {
        if (uid != EffectiveUser.uid()) {
            throw new UntrustedPathException(
                    Reason.OTHER_OWNER,
                    path + " belongs to " + EffectiveUser.owner(uid) + ", not to this user (uid " + EffectiveUser.uid()
                            + "): ask its owner or root to remove it, or point perfpin at another directory");
        }
    }

    public Path path() {
        return path;
    }

    /** The path of an entry, for what must be named by path (a library to load, a jar for -javaagent). */
    public Path resolve(String name) {
        return path.resolve(checkedName(name));
    }

    /**
     * This directory as an {@code O_PATH} descriptor, for the calls that take one ({@code openat} of its files with
     * {@code O_NOFOLLOW}), checked to be the directory verified when it was opened; the caller closes it.
     */
    public int descriptor(FileCalls calls) throws IOException {
        int fd = calls.openat(
                FileCalls.AT_FDCWD,
                path.toString(),
                FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_NOFOLLOW | FileCalls.O_CLOEXEC,
                0);
        if (fd < 0) {
            throw PathWalk.failure(path.toString(), fd);
        }
        if (!status.sameFileAs(calls.fstat(fd))) {
            calls.close(fd);
            throw new UntrustedPathException(Reason.REPLACED, path + " was replaced after perfpin checked it");
        }
        return fd;
    }

    /** A new file, created with O_CREAT|O_EXCL|O_NOFOLLOW, open for reading and writing. */
    public FileChannel createFile(String name) throws IOException {
        try (SecureDirectoryStream<Path> dir = stream()) {
            return create(dir, checkedName(name));
        }
    }

    /**
     * A file named {@code name} with exactly {@code content}: the one there when its whole content matches, else
     * one written now. Empty when {@code name} holds other content, which is left as it is. Loading code from
     * what this returns is safe: nothing but this user and root can change it, and it was compared byte for byte.
     */
    public Optional<Path> install(String name, byte[] content) throws IOException {
        String checked = checkedName(name);
        try (SecureDirectoryStream<Path> dir = stream()) {
            if (holds(dir, checked, content)) {
                return Optional.of(path.resolve(checked));
            }
            String temporary = writeTemporary(dir, "." + checked, ".tmp", content);
            try {
                // link(2) publishes the whole file at once and never replaces: a concurrent installer's copy, or
                // other content, stays, and is checked below like any other
                Files.createLink(path.resolve(checked), path.resolve(temporary));
            } catch (FileAlreadyExistsException e) {
                // checked below
            } catch (IOException | UnsupportedOperationException noHardLinks) {
                if (!Files.exists(path.resolve(checked), LinkOption.NOFOLLOW_LINKS)) {
                    dir.move(Path.of(temporary), dir, Path.of(checked));
                }
            } finally {
                deleteIfThere(dir, temporary);
            }
            return holds(dir, checked, content) ? Optional.of(path.resolve(checked)) : Optional.empty();
        }
    }

    /** A new file with a name of its own ({@code prefix}, random, {@code suffix}) holding {@code content}. */
    public Path installUnique(String prefix, String suffix, byte[] content) throws IOException {
        try (SecureDirectoryStream<Path> dir = stream()) {
            return path.resolve(writeTemporary(dir, checkedName(prefix), suffix, content));
        }
    }

    /** The names of the entries that {@code accept} takes. */
    public List<String> names(Predicate<String> accept) throws IOException {
        List<String> names = new ArrayList<>();
        try (SecureDirectoryStream<Path> dir = stream()) {
            for (Path entry : dir) {
                String name = entry.getFileName().toString();
                if (accept.test(name)) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /**
     * Keeps what perfpin makes here within a budget: of the regular files of this user's whose names {@code ours}
     * takes, the newest {@code keep} (by modification time) stay, as long as they hold at most {@code bytes} in all,
     * and the older ones are removed. No other entry is looked at, none is followed through a link, and a file that
     * another process holds locked (an agent that still writes it) is left. Returns how many were removed.
     */
    public int prune(Predicate<String> ours, int keep, long bytes) throws IOException {
        record Entry(String name, long size, long modified) {}
        List<Entry> entries = new ArrayList<>();
        try (SecureDirectoryStream<Path> dir = stream()) {
            for (Path entry : dir) {
                String name = entry.getFileName().toString();
                if (!ours.test(name)) {
                    continue;
                }
                try {
                    Map<String, Object> a = Files.readAttributes(
                            path.resolve(name), "unix:uid,mode,size,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
                    if (((Integer) a.get("mode") & FileStat.S_IFMT) == FileStat.S_IFREG
                            && (Integer) a.get("uid") == EffectiveUser.uid()) {
                        entries.add(new Entry(
                                name, (Long) a.get("size"), ((FileTime) a.get("lastModifiedTime")).toMillis()));
                    }
                } catch (NoSuchFileException gone) {
                    // removed meanwhile
                }
            }
            entries.sort(Comparator.comparingLong(Entry::modified).reversed());
            int removed = 0;
            long total = 0;
            for (int i = 0; i < entries.size(); i++) {
                Entry entry = entries.get(i);
                total += entry.size();
                if ((i < keep && total <= bytes) || beingWritten(dir, entry.name())) {
                    continue;
                }
                deleteIfThere(dir, entry.name());
                removed++;
            }
            return removed;
        }
    }

    /** Whether another process, or this one, holds a lock on the file: it is being written. */
    private static boolean beingWritten(SecureDirectoryStream<Path> dir, String name) throws IOException {
        try (SeekableByteChannel channel = dir.newByteChannel(Path.of(name), READ_NO_LINK)) {
            // a channel that is no FileChannel cannot tell: left as it is
            return !(channel instanceof FileChannel) || OutputFile.lockedByAnother((FileChannel) channel);
        } catch (NoSuchFileException gone) {
            return true; // nothing left to remove
        }
    }

    /**
     * The first {@code length} bytes (fewer where the file is shorter) of {@code name}, a regular file of this user's
     * that no process holds a write lock on ({@link OutputFile#createUnlessLocked}: one that writes it now); empty
     * when a process does, or when it is not there or no such file. Opened {@code O_NOFOLLOW|O_NONBLOCK} and checked
     * with {@code fstat} before it is read, so a FIFO or link in its place is never read or followed.
     */
    public Optional<ByteBuffer> readUnlocked(String name, int length) throws IOException {
        FileCalls calls = FileCalls.ofProcess();
        int dir = descriptor(calls);
        try {
            int fd = calls.openat(dir, checkedName(name), READ_ONLY, 0);
            if (fd < 0) {
                return Optional.empty();
            }
            try {
                FileStat file = calls.fstat(fd);
                if (!file.isRegularFile() || file.uid() != EffectiveUser.uid()) {
                    return Optional.empty();
                }
                try (FileChannel channel = PathWalk.channel(fd, Set.of(StandardOpenOption.READ))) {
                    if (OutputFile.lockedByAnother(channel)) {
                        return Optional.empty();
                    }
                    ByteBuffer bytes = ByteBuffer.allocate(length);
                    while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) > 0) {
                        // until the length, or the file's end
                    }
                    return Optional.of(bytes.flip());
                }
            } finally {
                calls.close(fd);
            }
        } finally {
            calls.close(dir);
        }
    }

    /** Removes an entry ({@code unlinkat}); false when it was not there. */
    public boolean delete(String name) throws IOException {
        try (SecureDirectoryStream<Path> dir = stream()) {
            dir.deleteFile(Path.of(checkedName(name)));
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    private static void deleteIfThere(SecureDirectoryStream<Path> dir, String name) throws IOException {
        try {
            dir.deleteFile(Path.of(name));
        } catch (NoSuchFileException e) {
            // moved into place
        }
    }

    /** Whether the entry is a regular file of this user's with exactly {@code content}. */
    private boolean holds(SecureDirectoryStream<Path> dir, String name, byte[] content) throws IOException {
        FileStatus status;
        try {
            status = FileStatus.of(path.resolve(name));
        } catch (NoSuchFileException e) {
            return false;
        }
        if (!status.isRegularFile() || status.uid != EffectiveUser.uid()) {
            return false;
        }
        try (SeekableByteChannel in = dir.newByteChannel(Path.of(name), READ_NO_LINK)) {
            if (in.size() != content.length) {
                return false;
            }
            ByteBuffer chunk = ByteBuffer.allocate(1 << 16);
            int compared = 0;
            while (compared < content.length) {
                chunk.clear();
                int read = in.read(chunk);
                if (read <= 0
                        || compared + read > content.length
                        || !Arrays.equals(chunk.array(), 0, read, content, compared, compared + read)) {
                    return false;
                }
                compared += read;
            }
            return true;
        }
    }

    private String writeTemporary(SecureDirectoryStream<Path> dir, String prefix, String suffix, byte[] content)
            throws IOException {
        for (int attempt = 0; ; attempt++) {
            String name = prefix + "." + randomSuffix() + suffix;
            try (FileChannel out = create(dir, name)) {
                ByteBuffer bytes = ByteBuffer.wrap(content);
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                return name;
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) {
                    throw e;
                }
            }
        }
    }

    private FileChannel create(SecureDirectoryStream<Path> dir, String name) throws IOException {
        FileChannel channel =
                (FileChannel) dir.newByteChannel(Path.of(name), NEW_FILE, PosixFilePermissions.asFileAttribute(FILE));
        try {
            // the umask may have taken bits; this file is ours since O_EXCL made it
            dir.getFileAttributeView(Path.of(name), PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setPermissions(FILE);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    /** This directory, opened again by its (trusted) path, and checked to be the one that was verified. */
    private SecureDirectoryStream<Path> stream() throws IOException {
        SecureDirectoryStream<Path> dir = stream(path);
        try {
            if (!dir.getFileAttributeView(BasicFileAttributeView.class)
                    .readAttributes()
                    .fileKey()
                    .equals(status.fileKey)) {
                throw new UntrustedPathException(Reason.REPLACED, path + " was replaced after perfpin checked it");
            }
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
        return dir;
    }

    private static SecureDirectoryStream<Path> stream(Path dir) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (!(stream instanceof SecureDirectoryStream)) {
            stream.close();
            throw new IOException(
                    "this JDK cannot open directories relative to a descriptor (no SecureDirectoryStream)");
        }
        return (SecureDirectoryStream<Path>) stream;
    }

    private static String checkedName(String name) {
        if (name.isEmpty()
                || name.equals(".")
                || name.equals("..")
                || name.indexOf('/') >= 0
                || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a file name: '" + name + "'");
        }
        return name;
    }

    private static String randomSuffix() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
