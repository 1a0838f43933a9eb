package io.perfpin.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.nativeio.FileCalls;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A name that a loop swaps between a regular file and a FIFO ({@code renameat2(RENAME_EXCHANGE)}), as another user
 * may do to a stats file of theirs: each open either gets the regular file or is refused in one line, and none
 * waits for a writer the FIFO will never have.
 */
class NamedFileSwapTest {
    /** renameat2's flag: exchange the two names atomically. */
    private static final int RENAME_EXCHANGE = 2;

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aFileSwappedWithAFifoIsReadOrRefusedAndNeverWaitedFor() throws Exception {
        Path file = Files.writeString(tmp.resolve("stats"), "a regular file");
        Path fifo = tmp.resolve("fifo");
        FileSystemFixtures.run("mkfifo", fifo.toString());
        FileCalls calls = FileCalls.ofProcess();
        AtomicBoolean swapping = new AtomicBoolean(true);
        Thread swapper = new Thread(
                () -> {
                    while (swapping.get()) {
                        calls.renameat2(
                                FileCalls.AT_FDCWD,
                                file.toString(),
                                FileCalls.AT_FDCWD,
                                fifo.toString(),
                                RENAME_EXCHANGE);
                    }
                },
                "swapper");
        swapper.setDaemon(true);
        swapper.start();
        int read = 0;
        int refused = 0;
        try {
            for (int i = 0; i < 100; i++) {
                try (FileChannel channel = NamedFile.openForReading(file)) {
                    assertEquals("a regular file".length(), channel.size());
                    read++;
                } catch (NamedFile.Refused e) {
                    assertTrue(e.getMessage().equals(file + " is a FIFO, not a regular file"), e.getMessage());
                    refused++;
                }
            }
        } finally {
            swapping.set(false);
            swapper.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertEquals(100, read + refused);
    }

    /** What is refused says the same whether a link leads to a file root alone may read or to nothing at all. */
    @Test
    void aLinkIsRefusedAlikeWhereverItLeads() throws IOException {
        FileSystemFixtures.assumeRoot();
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path toShadow = Files.createSymbolicLink(sticky.resolve("a"), Path.of("/etc/shadow"));
        Path toNothing = Files.createSymbolicLink(sticky.resolve("b"), Path.of("/etc/no-such-file-of-perfpin"));
        FileSystemFixtures.giveTo(toShadow, FileSystemFixtures.OTHER_UID);
        FileSystemFixtures.giveTo(toNothing, FileSystemFixtures.OTHER_UID);
        NamedFile.Refused shadow = refusal(toShadow);
        NamedFile.Refused nothing = refusal(toNothing);
        // the line is the product here: the same words, whatever the link leads to
        assertEquals(
                shadow.getMessage().replace(toShadow.toString(), "LINK").replace(": a ", ": L "),
                nothing.getMessage().replace(toNothing.toString(), "LINK").replace(": b ", ": L "));
        for (NamedFile.Refused refused : List.of(shadow, nothing)) {
            UntrustedPathException untrusted =
                    assertInstanceOf(UntrustedPathException.class, refused.getCause(), refused.getMessage());
            assertEquals(UntrustedPathException.Reason.FOREIGN_LINK, untrusted.reason(), refused.getMessage());
        }
    }

    private static NamedFile.Refused refusal(Path link) {
        try (FileChannel opened = NamedFile.openForReading(link)) {
            throw new AssertionError("opened " + link + " (" + opened.size() + " bytes)");
        } catch (NamedFile.Refused e) {
            return e;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
