package io.perfpin.files;

import static io.perfpin.files.FileSystemFixtures.giveTo;
import static io.perfpin.files.FileSystemFixtures.mode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.nativeio.FileCalls;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one rule for files a user names perfpin to write, against what may already be there. */
class OutputFileTest {
    @TempDir
    Path tmp;

    @Test
    void aNewFileIsCreatedPrivateWithItsMissingDirectories() throws Exception {
        Path file = tmp.resolve("new/dirs/out.jsonl");
        write(file, "data");
        assertEquals("data", Files.readString(file));
        assertEquals("rw-------", mode(file));
        assertEquals("rwx------", mode(tmp.resolve("new")));
        assertEquals("rwx------", mode(tmp.resolve("new/dirs")));
    }

    @Test
    void aRegularFileOfOursIsReplacedAsAWholeAndItsOtherNamesKeepTheOldContent() throws Exception {
        Path file = Files.writeString(tmp.resolve("out.jsonl"), "old content, longer than the new");
        Path otherName = Files.createLink(tmp.resolve("kept"), file);
        write(file, "new");
        assertEquals("new", Files.readString(file));
        assertEquals("old content, longer than the new", Files.readString(otherName));
        assertEquals("rw-------", mode(file));
        assertEquals(2, FileSystemFixtures.entries(tmp), "no temporary file is left");
    }

    @Test
    void aLinkIsNeverWrittenThroughNorReplaced() throws Exception {
        Path victim = Files.writeString(tmp.resolve("victim"), "precious");
        Path link = Files.createSymbolicLink(tmp.resolve("out.jsonl"), victim);
        IOException refused = assertThrows(IOException.class, () -> write(link, "overwritten"));
        assertEquals(
                link + " is a symbolic link, not a regular file: perfpin writes only a new file, or replaces"
                        + " one of yours",
                refused.getMessage());
        assertEquals("precious", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(link));
    }

    @Test
    void devicesFifosAndDirectoriesAreRefusedAndTheirDirectoryKeepsItsMode() throws Exception {
        FileSystemFixtures.assumeRoot();
        Path dev = Files.createDirectory(tmp.resolve("dev"));
        Files.setPosixFilePermissions(dev, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path nullDevice = dev.resolve("null");
        FileSystemFixtures.run("mknod", "-m", "666", nullDevice.toString(), "c", "1", "3");
        Path fifo = dev.resolve("fifo");
        FileSystemFixtures.run("mkfifo", fifo.toString());

        assertEquals(
                nullDevice + " is a character device, not a regular file: perfpin writes only a new file, or"
                        + " replaces one of yours",
                assertThrows(IOException.class, () -> write(nullDevice, "x")).getMessage());
        assertTrue(assertThrows(IOException.class, () -> write(fifo, "x"))
                .getMessage()
                .contains("is a FIFO"));
        assertTrue(assertThrows(IOException.class, () -> write(dev, "x"))
                .getMessage()
                .contains("is a directory"));
        assertTrue(assertThrows(IOException.class, () -> write(Path.of("/"), "x"))
                .getMessage()
                .contains("is a directory"));
        assertEquals("character device", kind(nullDevice), "the device is still there");
        assertEquals("rwxr-xr-x", mode(dev), "the directory's mode is never changed");
    }

    /** stats=/proc/self/mem once tried to make a temporary file in /proc/self: refused before anything is tried. */
    @Test
    void aFileOnAKernelFileSystemIsRefusedInOneLine() throws Exception {
        for (String file : new String[] {"/proc/self/mem", "/proc/self/no/such/dir/run.jsonl", "/sys/kernel/x"}) {
            Path path = Path.of(file);
            String type = file.startsWith("/proc") ? "proc" : "sysfs";
            assertEquals(
                    file + " is on " + type + ", a file system of the kernel's: perfpin writes only to regular"
                            + " file systems (a disk's, tmpfs)",
                    assertThrows(IOException.class, () -> write(path, "x")).getMessage());
        }
        assertTrue(Files.notExists(Path.of("/proc/self/no")));
    }

    @Test
    void anotherUsersFileIsNeverWrittenEvenWhenAnyoneMayWriteIt() throws Exception {
        FileSystemFixtures.assumeRoot();
        Path theirs = Files.writeString(tmp.resolve("theirs.jsonl"), "theirs");
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rw-rw-rw-"));
        giveTo(theirs, FileSystemFixtures.OTHER_UID);
        IOException refused = assertThrows(IOException.class, () -> write(theirs, "ours"));
        assertTrue(
                refused.getMessage().contains("belongs to")
                        && refused.getMessage().contains("files of yours"),
                refused.getMessage());
        assertEquals("theirs", Files.readString(theirs));
        assertEquals(FileSystemFixtures.OTHER_UID, FileSystemFixtures.owner(theirs));
        assertEquals(1, FileSystemFixtures.entries(tmp), "no temporary file is left");
    }

    @Test
    void anotherUsersLinkToADirectoryOfRootsIsNotFollowedAndRootsFileStaysAsItWas() throws Exception {
        FileSystemFixtures.assumeRoot();
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path roots = Files.createDirectory(tmp.resolve("roots"));
        Path precious = Files.writeString(roots.resolve("precious.csv"), "root's");
        Files.setPosixFilePermissions(precious, PosixFilePermissions.fromString("rw-r--r--"));
        Object inode = Files.getAttribute(precious, "unix:ino");
        Path link = Files.createSymbolicLink(sticky.resolve("r"), roots);
        giveTo(link, FileSystemFixtures.OTHER_UID);

        IOException refused = assertThrows(IOException.class, () -> write(link.resolve("precious.csv"), "x"));
        assertEquals(
                "cannot open " + link.resolve("precious.csv") + ": r is a symbolic link of uid "
                        + FileSystemFixtures.OTHER_UID
                        + " in a directory of uid 0; perfpin follows links only where root or"
                        + " you (uid 0) own both",
                refused.getMessage());
        assertEquals("root's", Files.readString(precious));
        assertEquals(inode, Files.getAttribute(precious, "unix:ino"));
        assertEquals("rw-r--r--", mode(precious));
        assertEquals(1, FileSystemFixtures.entries(roots), "nothing was created beside it");
    }

    @Test
    void aLinkOfThisUsersInAParentIsFollowedAndMissingDirectoriesBelowItAreCreated() throws Exception {
        Path real = Files.createDirectory(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("via"), real);
        write(link.resolve("new/out.jsonl"), "through");
        assertEquals("through", Files.readString(real.resolve("new/out.jsonl")));
        assertEquals("rwx------", mode(real.resolve("new")));
        assertTrue(Files.isSymbolicLink(link), "the link is followed, not replaced");
    }

    @Test
    void aLinkOfRootsInAParentIsFollowedWhoeverOwnsItsTarget() throws Exception {
        FileSystemFixtures.assumeRoot();
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwxrwxrwx"));
        giveTo(theirs, FileSystemFixtures.OTHER_UID);
        Path link = Files.createSymbolicLink(tmp.resolve("to-theirs"), theirs);
        write(link.resolve("out.jsonl"), "root's link");
        assertEquals("root's link", Files.readString(theirs.resolve("out.jsonl")));
        assertEquals("rwxrwxrwx", mode(theirs), "the directory's mode is never changed");
    }

    /** The descriptor flavour, for files written on the application's threads, follows the same rule. */
    @Test
    void aDescriptorIsOpenedByTheSameRule() throws Exception {
        FileCalls calls = FileCalls.ofProcess();
        Path file = Files.writeString(tmp.resolve("agent.log"), "old content");
        Path otherName = Files.createLink(tmp.resolve("kept"), file);
        int fd = OutputFile.createDescriptor(file);
        try {
            byte[] bytes = "new".getBytes(StandardCharsets.UTF_8);
            assertEquals(bytes.length, calls.writeAll(fd, bytes));
        } finally {
            calls.close(fd);
        }
        assertEquals("new", Files.readString(file));
        assertEquals("old content", Files.readString(otherName));
        assertEquals("rw-------", mode(file));
        assertEquals(2, FileSystemFixtures.entries(tmp), "no temporary file is left");
        Path link = Files.createSymbolicLink(tmp.resolve("linked.log"), otherName);
        assertThrows(IOException.class, () -> OutputFile.createDescriptor(link));
        assertEquals("old content", Files.readString(otherName));
    }

    /** A name near the kernel's 255-byte limit is replaced as any other: its temporary name is a shorter one. */
    @Test
    void aFileWithANameNearTheLimitIsReplacedAndALongerOneRefusedInWords() throws Exception {
        Path file = Files.writeString(tmp.resolve("n".repeat(235)), "old");
        try (FileChannel out = OutputFile.create(file)) {
            out.write(ByteBuffer.wrap("new".getBytes(StandardCharsets.UTF_8)));
        }
        assertEquals("new", Files.readString(file));
        assertEquals(1, FileSystemFixtures.entries(tmp), "no temporary file is left");
        Path tooLong = tmp.resolve("n".repeat(256));
        assertEquals(
                "cannot open " + tooLong + ": file name too long",
                assertThrows(IOException.class, () -> OutputFile.create(tooLong).close())
                        .getMessage());
    }

    /**
     * A check refuses what create refuses, in the same words, and leaves what is there as it was: a file of ours
     * keeps its content and its inode, and no probe is left beside it.
     */
    @Test
    void aCheckRefusesAsCreateDoesAndLeavesTheFileAsItWas() throws Exception {
        Path file = Files.writeString(tmp.resolve("out.jsonl"), "precious");
        Object inode = Files.readAttributes(file, "unix:ino").get("ino");
        OutputFile.check(file);
        OutputFile.check(tmp.resolve("new/dir/out.jsonl"));
        assertEquals("precious", Files.readString(file));
        assertEquals(inode, Files.readAttributes(file, "unix:ino").get("ino"));
        assertEquals(1, FileSystemFixtures.entries(tmp), "the file alone: no probe, no directory made for nothing");
        Path link = Files.createSymbolicLink(tmp.resolve("linked.jsonl"), file);
        assertEquals(
                assertThrows(IOException.class, () -> write(link, "x")).getMessage(),
                assertThrows(IOException.class, () -> OutputFile.check(link)).getMessage());
        assertEquals("precious", Files.readString(file));
    }

    /** A directory nothing can be made in (immutable, so even for root) is refused by the check's probe. */
    @Test
    void aCheckRefusesADirectoryWhereNothingCanBeCreated() throws Exception {
        FileSystemFixtures.assumeRoot();
        Path locked = Files.createDirectory(tmp.resolve("locked"));
        Path file = Files.writeString(locked.resolve("out.jsonl"), "precious");
        FileSystemFixtures.run("chattr", "+i", locked.toString());
        try {
            assertEquals(
                    assertThrows(IOException.class, () -> write(file, "x")).getMessage(),
                    assertThrows(IOException.class, () -> OutputFile.check(file))
                            .getMessage());
        } finally {
            FileSystemFixtures.run("chattr", "-i", locked.toString());
        }
        assertEquals("precious", Files.readString(file));
        assertEquals(1, FileSystemFixtures.entries(locked));
    }

    private static void write(Path file, String content) throws IOException {
        try (FileChannel out = OutputFile.create(file)) {
            out.write(ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8)));
        }
    }

    private static String kind(Path path) throws IOException {
        return Files.readAttributes(path, "unix:mode", LinkOption.NOFOLLOW_LINKS)
                                        .get("mode")
                                instanceof Integer m
                        && (m & 0170000) == 0020000
                ? "character device"
                : "other";
    }
}
