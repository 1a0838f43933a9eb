package io.perfpin.files;

import static io.perfpin.files.FileSystemFixtures.giveTo;
import static io.perfpin.files.FileSystemFixtures.mode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** perfpin's own directories on the real filesystem, with what another user could have left in their place. */
class OwnedDirectoryTest {
    private static final byte[] CODE = "the bytes of a library".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    @Test
    void createsPrivateDirectoriesAndFiles() throws Exception {
        OwnedDirectory dir = OwnedDirectory.open(tmp.resolve("a/b"));
        assertEquals("rwx------", mode(tmp.resolve("a")));
        assertEquals("rwx------", mode(dir.path()));
        try (FileChannel file = dir.createFile("f")) {
            file.write(ByteBuffer.wrap(CODE));
        }
        assertEquals("rw-------", mode(dir.resolve("f")));
        assertThrows(
                java.nio.file.FileAlreadyExistsException.class,
                () -> dir.createFile("f").close());
        assertEquals(dir.path(), OwnedDirectory.open(tmp.resolve("a/b")).path());
    }

    @Test
    void aLinkInPlaceOfTheDirectoryIsRefusedAndNothingIsWrittenWhereItPoints() throws Exception {
        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        Files.createSymbolicLink(tmp.resolve("perfpin-x"), elsewhere);
        UntrustedPathException refused =
                assertThrows(UntrustedPathException.class, () -> OwnedDirectory.open(tmp.resolve("perfpin-x")));
        assertEquals(UntrustedPathException.Reason.NOT_A_DIRECTORY, refused.reason(), refused.getMessage());
        assertTrue(refused.getMessage().startsWith(tmp.resolve("perfpin-x").toString()), refused.getMessage());
        assertEquals(0, FileSystemFixtures.entries(elsewhere));
        if (EffectiveUser.uid() == 0) {
            // a link above perfpin's directory is resolved, and where it leads must be trusted like any parent
            giveTo(elsewhere, FileSystemFixtures.OTHER_UID);
            UntrustedPathException above =
                    assertThrows(UntrustedPathException.class, () -> OwnedDirectory.open(tmp.resolve("perfpin-x/sub")));
            assertEquals(UntrustedPathException.Reason.OTHER_OWNER, above.reason(), above.getMessage());
            assertEquals(0, FileSystemFixtures.entries(elsewhere));
        }
    }

    @Test
    void anotherUsersLinkAboveTheDirectoryIsNotFollowedToADirectoryOfRoots() throws Exception {
        FileSystemFixtures.assumeRoot();
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path roots = Files.createDirectory(
                tmp.resolve("roots"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path link = Files.createSymbolicLink(sticky.resolve("perfpin-root"), roots);
        giveTo(link, FileSystemFixtures.OTHER_UID);
        UntrustedPathException refused =
                assertThrows(UntrustedPathException.class, () -> OwnedDirectory.open(link.resolve("cpus")));
        assertEquals(UntrustedPathException.Reason.FOREIGN_LINK, refused.reason());
        // the one line a user reads, said whole once
        assertEquals(
                link + " is a symbolic link of uid " + FileSystemFixtures.OTHER_UID + " in a directory of uid 0;"
                        + " perfpin follows links only where root or you (uid 0) own both",
                refused.getMessage());
        assertEquals(0, FileSystemFixtures.entries(roots), "nothing was created where it points");

        // root's own link there is followed
        Path own = Files.createSymbolicLink(tmp.resolve("own"), roots);
        assertEquals(
                roots.resolve("cpus"), OwnedDirectory.open(own.resolve("cpus")).path());
    }

    @Test
    void anotherUsersDirectoryIsRefusedAndLeftAsItWas() throws Exception {
        FileSystemFixtures.assumeRoot();
        Path theirs = Files.createDirectory(
                tmp.resolve("theirs"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        giveTo(theirs, FileSystemFixtures.OTHER_UID);
        UntrustedPathException refused = assertThrows(UntrustedPathException.class, () -> OwnedDirectory.open(theirs));
        assertEquals(UntrustedPathException.Reason.OTHER_OWNER, refused.reason(), refused.getMessage());
        assertEquals("rwx------", mode(theirs));
        assertEquals(FileSystemFixtures.OTHER_UID, FileSystemFixtures.owner(theirs));
    }

    @Test
    void anOpenDirectoryOfOursIsRefusedAndItsModeNeverChanged() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        UntrustedPathException refused = assertThrows(UntrustedPathException.class, () -> OwnedDirectory.open(open));
        assertEquals(UntrustedPathException.Reason.OPEN_MODE, refused.reason(), refused.getMessage());
        // the line is the product here: it tells the user the command that mends it
        assertTrue(
                refused.getMessage().contains("has mode 0755")
                        && refused.getMessage().contains("chmod 700"),
                refused.getMessage());
        assertEquals("rwxr-xr-x", mode(open));
    }

    @Test
    void aParentAnotherUserCouldChangeIsRefused() throws Exception {
        FileSystemFixtures.assumeRoot();
        Path theirs = Files.createDirectory(tmp.resolve("x"));
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwxr-xr-x"));
        giveTo(theirs, FileSystemFixtures.OTHER_UID);
        UntrustedPathException owned =
                assertThrows(UntrustedPathException.class, () -> OwnedDirectory.open(theirs.resolve("perfpin-root")));
        assertEquals(UntrustedPathException.Reason.OTHER_OWNER, owned.reason(), owned.getMessage());
        assertTrue(owned.getMessage().startsWith(theirs + " "), "it names the directory: " + owned.getMessage());

        Path writable = Files.createDirectory(tmp.resolve("w"));
        Files.setPosixFilePermissions(writable, PosixFilePermissions.fromString("rwxrwxrwx"));
        UntrustedPathException open =
                assertThrows(UntrustedPathException.class, () -> OwnedDirectory.open(writable.resolve("perfpin-root")));
        assertEquals(UntrustedPathException.Reason.OPEN_MODE, open.reason(), open.getMessage());
        assertFalse(Files.exists(theirs.resolve("perfpin-root")));
        assertFalse(Files.exists(writable.resolve("perfpin-root")));
    }

    @Test
    void aStickyWorldWritableParentLikeTmpIsTrusted() throws Exception {
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        OwnedDirectory dir = OwnedDirectory.open(sticky.resolve("perfpin-me"));
        assertEquals("rwx------", mode(dir.path()));
    }

    @Test
    void installWritesOnceAndReusesACopyOnlyWhenEveryByteMatches() throws Exception {
        OwnedDirectory dir = OwnedDirectory.open(tmp.resolve("lib"));
        Path first = dir.install("libx.so", CODE).orElseThrow();
        assertArrayEquals(CODE, Files.readAllBytes(first));
        Object inode = Files.readAttributes(first, "unix:ino").get("ino");
        assertEquals(
                inode,
                Files.readAttributes(dir.install("libx.so", CODE).orElseThrow(), "unix:ino")
                        .get("ino"),
                "a matching copy is reused");
        assertEquals(1, FileSystemFixtures.entries(dir.path()), "no temporary file is left");

        byte[] planted = CODE.clone();
        planted[3] ^= 1; // same length, one bit off
        Files.write(first, planted);
        assertEquals(Optional.empty(), dir.install("libx.so", CODE), "other bytes under the name are never used");
        assertArrayEquals(planted, Files.readAllBytes(first), "and never replaced");
        Path unique = dir.installUnique("libx.so", ".so", CODE);
        assertArrayEquals(CODE, Files.readAllBytes(unique));
        assertTrue(unique.getFileName().toString().startsWith("libx.so."));
    }

    @Test
    void installNeverReadsThroughALinkOrAnotherUsersFile() throws Exception {
        OwnedDirectory dir = OwnedDirectory.open(tmp.resolve("lib"));
        Path target = Files.write(tmp.resolve("target.so"), CODE);
        Files.createSymbolicLink(dir.resolve("linked.so"), target);
        assertEquals(Optional.empty(), dir.install("linked.so", CODE));
        assertTrue(Files.isSymbolicLink(dir.resolve("linked.so")));
        if (EffectiveUser.uid() == 0) {
            Path theirs = Files.write(dir.resolve("theirs.so"), CODE);
            giveTo(theirs, FileSystemFixtures.OTHER_UID);
            assertEquals(Optional.empty(), dir.install("theirs.so", CODE), "same bytes, but not ours");
        }
    }

    @Test
    void aDirectoryReplacedAfterItWasCheckedIsNoLongerUsed() throws Exception {
        OwnedDirectory dir = OwnedDirectory.open(tmp.resolve("d"));
        Files.move(dir.path(), tmp.resolve("moved"));
        Files.createDirectory(
                tmp.resolve("d"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        UntrustedPathException refused = assertThrows(UntrustedPathException.class, () -> dir.createFile("f"));
        assertEquals(UntrustedPathException.Reason.REPLACED, refused.reason(), refused.getMessage());
        assertFalse(Files.exists(tmp.resolve("d/f"), LinkOption.NOFOLLOW_LINKS));
    }
}
