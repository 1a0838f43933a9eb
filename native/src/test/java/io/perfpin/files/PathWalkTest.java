package io.perfpin.files;

import static io.perfpin.files.FileSystemFixtures.OTHER_UID;
import static io.perfpin.files.FileSystemFixtures.assumeRoot;
import static io.perfpin.files.FileSystemFixtures.giveTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.FileCalls;
import io.perfpin.nativeio.FileStat;
import io.perfpin.nativeio.ThreadCredentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Walks over the real file system, with links, FIFOs and files of another user planted on the way. */
class PathWalkTest {
    private static final FileCalls CALLS = new FileCalls(Backends.syscalls());

    @TempDir
    Path tmp;

    @Test
    void followsLinksOfThisUserAndOpensTheFileTheyName() throws Exception {
        Path file = Files.writeString(
                Files.createDirectories(tmp.resolve("real/dir")).resolve("f"), "content");
        Files.createSymbolicLink(tmp.resolve("via"), tmp.resolve("real"));
        Files.createSymbolicLink(tmp.resolve("real/dir/g"), Path.of("f"));
        assertEquals(
                "content", read(PathWalk.onHost(CALLS), tmp.resolve("via/dir/g").toString()));
        assertEquals(
                "content",
                read(PathWalk.onHost(CALLS), tmp.resolve("via/dir/../dir/./f").toString()));
        assertEquals("content", read(PathWalk.onHost(CALLS), file.toString()));
    }

    @Test
    void refusesALinkOfAnotherUserInAParentAndAsTheFile() throws Exception {
        assumeRoot();
        Path theirs = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(theirs, "unix:mode", 01777);
        Path mine = Files.createDirectory(tmp.resolve("mine"));
        Files.writeString(mine.resolve("precious"), "root's");
        Path parentLink = Files.createSymbolicLink(theirs.resolve("r"), mine);
        giveTo(parentLink, OTHER_UID);
        UntrustedPathException refused = assertThrows(
                UntrustedPathException.class,
                () -> PathWalk.onHost(CALLS)
                        .parent(parentLink.resolve("precious").toString()));
        assertEquals(UntrustedPathException.Reason.FOREIGN_LINK, refused.reason(), refused.getMessage());
        // the line is what the user reads: it names the link and its owner
        assertTrue(refused.getMessage().contains("r is a symbolic link of uid " + OTHER_UID), refused.getMessage());

        Path fileLink = Files.createSymbolicLink(theirs.resolve("f"), mine.resolve("precious"));
        giveTo(fileLink, OTHER_UID);
        refused = assertThrows(
                UntrustedPathException.class, () -> PathWalk.onHost(CALLS).locate(fileLink.toString()));
        assertEquals(UntrustedPathException.Reason.FOREIGN_LINK, refused.reason(), refused.getMessage());

        // root's own link in a directory another user owns is refused too: that user could swap it
        Path dirOfTheirs = Files.createDirectory(tmp.resolve("theirs"));
        giveTo(dirOfTheirs, OTHER_UID);
        Files.createSymbolicLink(dirOfTheirs.resolve("l"), mine.resolve("precious"));
        UntrustedPathException inTheirs = assertThrows(
                UntrustedPathException.class,
                () -> PathWalk.onHost(CALLS).locate(dirOfTheirs.resolve("l").toString()));
        assertEquals(UntrustedPathException.Reason.FOREIGN_LINK, inTheirs.reason(), inTheirs.getMessage());
    }

    @Test
    void aFifoIsLocatedWithoutWaitingAndRefusedForReading() throws Exception {
        Path fifo = tmp.resolve("fifo");
        FileSystemFixtures.run("mkfifo", fifo.toString());
        PathWalk walk = PathWalk.onHost(CALLS);
        int fd = walk.locate(fifo.toString());
        try {
            NotARegularFileException refused = assertThrows(
                    NotARegularFileException.class,
                    () -> PathWalk.reopen(CALLS, fd, FileCalls.O_RDONLY, fifo.toString()));
            assertEquals(fifo + " is a FIFO, not a regular file", refused.getMessage());
        } finally {
            CALLS.close(fd);
        }
    }

    @Test
    void insideARootNoLinkIsFollowedAndDotDotStaysBelowIt() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root/tmp"));
        Files.writeString(tmp.resolve("outside"), "outside");
        Files.writeString(root.resolve("inside"), "inside");
        Files.createSymbolicLink(root.resolve("link"), Path.of("inside"));
        int rootFd = CALLS.openat(
                FileCalls.AT_FDCWD,
                tmp.resolve("root").toString(),
                FileCalls.O_PATH | FileCalls.O_DIRECTORY | FileCalls.O_CLOEXEC,
                0);
        assertTrue(rootFd >= 0);
        try {
            PathWalk walk = PathWalk.inRoot(CALLS, rootFd);
            assertEquals("inside", read(walk, "/tmp/inside"));
            assertEquals("inside", read(walk, "/../../tmp/inside"));
            assertThrows(IOException.class, () -> read(walk, "/../outside"));
            IOException link = assertThrows(IOException.class, () -> read(walk, "/tmp/link"));
            assertTrue(link.getMessage().contains("/tmp/link"), link.getMessage());
        } finally {
            CALLS.close(rootFd);
        }
    }

    @Test
    void aThreadWithAnotherUsersRightsCreatesTheirFilesAndCannotReadRootsWhileTheJvmKeepsItsOwn() throws Exception {
        assumeRoot();
        Path secret = Files.writeString(tmp.resolve("secret"), "root only");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        String[] capabilities = new String[1];
        int[] results = ThreadCredentials.callAs(
                Backends.syscalls(), OTHER_UID, OTHER_UID, List.of(), Duration.ofSeconds(10), () -> {
                    int read = CALLS.openat(FileCalls.AT_FDCWD, secret.toString(), FileCalls.O_RDONLY, 0);
                    int created = CALLS.openat(
                            FileCalls.AT_FDCWD,
                            tmp.resolve("theirs").toString(),
                            FileCalls.O_CREAT | FileCalls.O_EXCL | FileCalls.O_WRONLY,
                            0600);
                    capabilities[0] = Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
                            .filter(l -> l.startsWith("Cap") || l.startsWith("Uid") || l.startsWith("Gid"))
                            .reduce("", (a, b) -> a + b.replaceAll("\\s+", " ").strip() + "\n");
                    return new int[] {read, created};
                });
        // the helper kept no capability to take root's rights back with, and its real and saved ids are root's
        assertTrue(
                capabilities[0].contains(
                        "CapInh: 0000000000000000\nCapPrm: 0000000000000000\n" + "CapEff: 0000000000000000\n"),
                capabilities[0]);
        assertTrue(capabilities[0].contains("Uid: 0 " + OTHER_UID + " 0 " + OTHER_UID + "\n"), capabilities[0]);
        assertEquals(-13, results[0]); // EACCES: root's capabilities are not the helper thread's
        assertTrue(results[1] >= 0);
        FileStat created = CALLS.fstat(results[1]);
        CALLS.close(results[1]);
        assertEquals(OTHER_UID, created.uid());
        assertEquals(OTHER_UID, created.gid());
        // this thread kept root's rights
        int fd = CALLS.openat(FileCalls.AT_FDCWD, secret.toString(), FileCalls.O_RDONLY, 0);
        assertTrue(fd >= 0);
        CALLS.close(fd);
    }

    private static String read(PathWalk walk, String path) throws IOException {
        int located = walk.locate(path);
        try {
            int fd = PathWalk.reopen(CALLS, located, FileCalls.O_RDONLY, path);
            try {
                return Files.readString(Path.of("/proc/self/fd/" + fd), StandardCharsets.UTF_8);
            } finally {
                CALLS.close(fd);
            }
        } finally {
            CALLS.close(located);
        }
    }
}
