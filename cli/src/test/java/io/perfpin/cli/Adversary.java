package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A second local user, as an attacker on the same machine is: created by the test where root may
 * ({@code useradd}), and acting through {@code setpriv}, so what it plants has its owner in the kernel's eyes.
 * Tests that need one are skipped, with the reason, where the machine allows none.
 */
final class Adversary {
    static final String NAME = "perfpin-adversary";

    final int uid;
    final int gid;

    private Adversary(int uid, int gid) {
        this.uid = uid;
        this.gid = gid;
    }

    static Adversary create() throws IOException, InterruptedException {
        assumeTrue("0".equals(output("id", "-u").strip()), "only root can create a second user here");
        Optional<Path> useradd = Programs.onPath("useradd");
        assumeTrue(
                useradd.isPresent() && Programs.onPath("setpriv").isPresent(),
                "useradd and setpriv are needed on the PATH to act as a second user");
        Process add = new ProcessBuilder(
                        useradd.get().toString(),
                        "--system",
                        "--user-group",
                        "--no-create-home",
                        "--shell",
                        "/usr/sbin/nologin",
                        NAME)
                .redirectErrorStream(true)
                .start();
        String said = new String(add.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(add.waitFor(60, TimeUnit.SECONDS), "useradd did not finish");
        // 9: the user exists already, from an earlier run or a test beside this one
        assertTrue(add.exitValue() == 0 || add.exitValue() == 9, "useradd " + NAME + ": " + said);
        return new Adversary(
                Integer.parseInt(output("id", "-u", NAME).strip()),
                Integer.parseInt(output("id", "-g", NAME).strip()));
    }

    /** setpriv, from the PATH: {@link #create} skipped the test without it. */
    static String setpriv() {
        return Programs.onPath("setpriv").orElseThrow().toString();
    }

    /** {@code command} as this user would run it, with no supplementary groups (through setpriv). */
    List<String> asThisUser(String... command) {
        List<String> as =
                new ArrayList<>(List.of(setpriv(), "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--"));
        as.addAll(List.of(command));
        return as;
    }

    /** Runs a shell command as this user; fails the test when it fails. */
    void sh(String script) throws IOException, InterruptedException {
        String out = output(asThisUser("sh", "-ec", script).toArray(new String[0]));
        assertTrue(out.isEmpty() || !out.contains("denied"), script + ": " + out);
    }

    /** Whether a shell command run as this user succeeds. */
    boolean can(String script) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(asThisUser("sh", "-ec", script))
                .redirectErrorStream(true)
                .start();
        process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), script + " did not finish");
        return process.exitValue() == 0;
    }

    /**
     * A launcher for {@link ChildJvm#startUnder}: the command it is given runs as this user, in /tmp, where a JVM
     * of this user's may write (the attach mechanism's trigger file).
     */
    List<String> launcher() {
        return asThisUser("sh", "-c", "cd /tmp && exec \"$@\"", "sh");
    }

    /**
     * A copy of {@code classPath} that this user can read, in {@code dir} (made readable by all): the build's
     * jars lie where only root may look.
     */
    static String readableCopy(String classPath, Path dir) throws IOException {
        List<String> copied = new ArrayList<>();
        int n = 0;
        for (String entry : classPath.split(":")) {
            Path from = Paths.get(entry);
            if (!Files.exists(from)) {
                continue;
            }
            Path to = dir.resolve(n++ + "-" + from.getFileName());
            try (Stream<Path> tree = Files.walk(from)) {
                for (Path source : (Iterable<Path>) tree::iterator) {
                    Path target = to.resolve(from.relativize(source).toString());
                    Files.copy(source, target);
                    Files.setPosixFilePermissions(
                            target,
                            PosixFilePermissions.fromString(Files.isDirectory(target) ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
            copied.add(to.toString());
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return String.join(":", copied);
    }

    /** A directory of this user's (0755) in the sticky /tmp, as an attacker makes one. */
    Path newDirectory() throws IOException, InterruptedException {
        Path dir = Paths.get(
                "/tmp",
                "perfpin-adversary-"
                        + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        sh("mkdir -m 755 " + dir);
        return dir;
    }

    /**
     * Removes the attach socket that a JVM of this user's with {@code pid} made in /tmp and could not remove (it
     * exec'd, or was killed): only a socket of this user's, so nothing of another test's is touched.
     */
    void removeAttachSocket(long pid) throws IOException {
        Path socket = Paths.get("/tmp", ".java_pid" + pid);
        if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)
                && (int) Files.getAttribute(socket, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid) {
            Files.deleteIfExists(socket);
        }
    }

    static void removeAll(Path dir) throws IOException, InterruptedException {
        if (dir != null) {
            output("rm", "-rf", "--", dir.toString());
        }
    }

    private static String output(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(new ArrayList<>(List.of(command)))
                .redirectErrorStream(true)
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, process.exitValue(), () -> String.join(" ", command) + ": " + out);
        return out;
    }
}
