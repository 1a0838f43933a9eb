package io.perfpin.files;

import static io.perfpin.files.FileSystemFixtures.giveTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * perfpin as a user of the host ("bob") inside {@code unshare -Ur}, where every other user of the host ("alice") shows
 * as the overflow uid, as the host's root does: alice's link and alice's open directory are refused, and only the
 * directories on the way to bob's own home are trusted.
 */
class UserNamespaceTrustTest {
    private static final int BOB = FileSystemFixtures.OTHER_UID + 1;
    private static final int ALICE = FileSystemFixtures.OTHER_UID;

    @Test
    void anotherHostUsersLinkAndOpenDirectoryAreRefusedInsideAUserNamespace() throws Exception {
        FileSystemFixtures.assumeRoot();
        assumeTrue(canUnshareAs(BOB), "setpriv and unshare on the PATH, and unprivileged user namespaces, are needed");
        // Below /run, root's and written by no one else, wherever the build is: below a sticky directory of an owner
        // outside the namespace (a clone in /tmp), bob's home itself would be refused.
        Path run = Paths.get("/run");
        assumeTrue(Files.isDirectory(run) && Files.isWritable(run), "a /run of root's to make bob's home in");
        Path scratch = Files.createTempDirectory(run, "perfpin-userns-");
        try {
            Files.setPosixFilePermissions(scratch, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path home = Files.createDirectory(scratch.resolve("home"));
            Files.writeString(home.resolve("out.txt"), "bob's");
            Path sticky = Files.createDirectory(scratch.resolve("sticky"));
            Files.setPosixFilePermissions(sticky, PosixFilePermissions.fromString("rwxrwxrwx"));
            FileSystemFixtures.run("chmod", "1777", sticky.toString());
            Path aliceLink = Files.createSymbolicLink(sticky.resolve("alice-q"), home);
            Path pub = Files.createDirectory(scratch.resolve("pub"));
            FileSystemFixtures.run("chmod", "1777", pub.toString());
            for (Path path : List.of(home.resolve("out.txt"), home)) {
                giveTo(path, BOB);
            }
            for (Path path : List.of(aliceLink, pub)) {
                giveTo(path, ALICE);
            }
            String overflow =
                    Files.readString(Paths.get("/proc/sys/kernel/overflowuid")).strip();
            TestJvm.Builder bob = TestJvm.main(ForeignOwnerProbe.class)
                    .launcher("setpriv", "--reuid=" + BOB, "--regid=" + BOB, "--clear-groups", "--", "unshare", "-Ur")
                    .classPath(Paths.get("target/classes").toAbsolutePath() + ":"
                            + Paths.get("target/test-classes").toAbsolutePath())
                    .environment("HOME", home.toString())
                    .property(
                            PackagedCopy.EXTRACT_DIR_PROPERTY,
                            home.resolve("lib").toString())
                    .directory(home);
            List<String> said = bob.args(
                            "output", aliceLink.resolve("out.txt").toString(),
                            "extract", pub.resolve("ex").toString(),
                            "extract", home.resolve("ex").toString())
                    .run();
            assertEquals(3, said.size(), said.toString());
            assertTrue(said.get(0).startsWith("refused FOREIGN_LINK: "), said.get(0));
            assertEquals("bob's", Files.readString(home.resolve("out.txt"), StandardCharsets.UTF_8));
            assertTrue(
                    said.get(1).startsWith("refused OTHER_OWNER: " + pub + " belongs to uid " + overflow), said.get(1));
            assertFalse(Files.exists(pub.resolve("ex"), LinkOption.NOFOLLOW_LINKS));
            // the same ancestors, foreign too, lead to bob's home: trusted
            assertEquals("done", said.get(2));
            assertEquals(BOB, FileSystemFixtures.owner(home.resolve("ex")));
        } finally {
            FileSystemFixtures.run("rm", "-rf", "--", scratch.toString());
        }
    }

    /**
     * A uid with no passwd entry (docker's {@code --user N}), whose JDK says {@code ?} for its name and home: its
     * copies go to {@code /tmp/perfpin-<uid>} alone, never below its working directory; and a perfpin directory
     * another user made first is refused by its owner, before perfpin tries to open it.
     */
    @Test
    void aUidWithNoNameUsesItsNumberAndAnotherUsersDirectoryIsRefusedByOwner() throws Exception {
        FileSystemFixtures.assumeRoot();
        assumeTrue(canUnshareAs(BOB), "setpriv on the PATH is needed");
        Path scratch = Files.createTempDirectory(Paths.get("target").toAbsolutePath(), "nameless-");
        try {
            FileSystemFixtures.run("chmod", "1777", scratch.toString()); // as /tmp
            Path taken = Files.createDirectory(scratch.resolve("perfpin-taken"));
            Files.setPosixFilePermissions(taken, PosixFilePermissions.fromString("rwx------"));
            giveTo(taken, ALICE);
            List<String> said = TestJvm.main(ForeignOwnerProbe.class)
                    .launcher("setpriv", "--reuid=" + BOB, "--regid=" + BOB, "--clear-groups", "--")
                    .classPath(Paths.get("target/classes").toAbsolutePath() + ":"
                            + Paths.get("target/test-classes").toAbsolutePath())
                    .jvmOptions("-Djava.io.tmpdir=/tmp")
                    .environment("HOME", "")
                    .directory(scratch)
                    .args("directories", "-", "open", taken.toString())
                    .run();
            assertEquals(
                    List.of(
                            "directories [/tmp/perfpin-" + BOB + "]",
                            "done",
                            "refused OTHER_OWNER: " + taken
                                    + " belongs to uid " + ALICE + ", not to this user (uid " + BOB
                                    + "): ask its owner or root"
                                    + " to remove it, or point perfpin at another directory"),
                    said);
            assertFalse(Files.exists(scratch.resolve("?")), "nothing below the working directory");
        } finally {
            FileSystemFixtures.run("rm", "-rf", "--", scratch.toString());
        }
    }

    /** Whether {@code uid} may make a user namespace here: setpriv and unshare, found on the PATH, say. */
    private static boolean canUnshareAs(int uid) throws InterruptedException {
        try {
            Process check = new ProcessBuilder(
                            "setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "unshare", "-Ur", "true")
                    .redirectErrorStream(true)
                    .start();
            check.getInputStream().readAllBytes();
            assertTrue(check.waitFor(60, TimeUnit.SECONDS), "unshare -Ur true did not finish");
            return check.exitValue() == 0;
        } catch (IOException missing) {
            return false;
        }
    }
}
