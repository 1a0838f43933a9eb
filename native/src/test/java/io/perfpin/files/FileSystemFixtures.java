package io.perfpin.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** What the tests plant: files of another owner, device nodes, FIFOs; and how they read back modes. */
final class FileSystemFixtures {
    /** An owner that is not this process's: root may give a file to any uid, whether a user has it or not. */
    static final int OTHER_UID = 4242;

    private FileSystemFixtures() {}

    static void assumeRoot() {
        assumeTrue(EffectiveUser.uid() == 0, "only root can give a file to another user here");
    }

    static void giveTo(Path path, int uid) throws IOException {
        Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    }

    static int owner(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    static long entries(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.count();
        }
    }

    /** {@code mknod}, {@code mkfifo} or {@code chattr}, run as programs: the JDK does none of it. */
    static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, process.exitValue(), String.join(" ", command) + ": " + output);
    }
}
