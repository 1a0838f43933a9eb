package io.perfpin.nativeio;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.zip.CRC32C;
import java.util.Set;

/**
 * Directories and files only their user can read: everything perfpin writes (0700 directories, 0600
 * files). A directory that exists but belongs to someone else is refused, since whoever owns it could
 * swap what we load or read from it.
 */
public final class PrivateFiles {
    public static final Set<PosixFilePermission> DIRECTORY_PERMISSIONS = PosixFilePermissions.fromString("rwx------");
    public static final Set<PosixFilePermission> FILE_PERMISSIONS = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {
    }

    /** Creates {@code dir} and missing parents as 0700, or checks and tightens an existing one we own. */
    public static Path createPrivateDirectories(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Path parent = dir.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                createPrivateDirectories(parent);
            }
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY_PERMISSIONS));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another process made it between our check and create, or it is not a directory: checked below
            }
            if (!Files.isDirectory(dir)) {
                throw new IOException(dir + " exists and is not a directory: choose another directory");
            }
        }
        PosixFileAttributeView view = Files.getFileAttributeView(dir, PosixFileAttributeView.class);
        UserPrincipal me = dir.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        if (!view.getOwner().equals(me)) {
            throw new IOException(dir + " belongs to " + view.getOwner().getName() + ", not to "
                    + me.getName() + ": choose another directory");
        }
        if (!view.readAttributes().permissions().equals(DIRECTORY_PERMISSIONS)) {
            view.setPermissions(DIRECTORY_PERMISSIONS);
        }
        return dir;
    }

    /**
     * Writes {@code content} to {@code target} (0600) atomically, unless a file of that size is already there:
     * callers put {@link #contentName} in the name, so the same name is the same bytes.
     */
    public static Path writeOnce(byte[] content, Path target) throws IOException {
        if (Files.isRegularFile(target) && Files.size(target) == content.length) {
            return target;
        }
        Path temporary = Files.createTempFile(target.getParent(), ".perfpin", ".tmp",
                PosixFilePermissions.asFileAttribute(FILE_PERMISSIONS));
        try {
            Files.write(temporary, content);
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        return target;
    }

    /**
     * A name for the content: its length and CRC-32C. Files named by it live in private directories only their
     * user can write, so the name needs to tell versions apart, not to resist forgery; and a cryptographic hash
     * would load the JDK's security providers into every application the agent starts in.
     */
    public static String contentName(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return Long.toHexString(bytes.length) + "-" + Long.toHexString(crc.getValue() | 0x1_0000_0000L).substring(1);
    }
}
