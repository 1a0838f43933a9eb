package io.perfpin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.apps.Programs;
import io.perfpin.report.Recording;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files that {@code stats=} and {@code out=} name, against what may be there already: the agent writes a new
 * file or replaces one of its user's own, and refuses anything else with one line, leaving it and its directory as
 * they were. The application runs as it would without the agent either way.
 */
class OutputFilesIT {
    private static final String REFUSED = "not a regular file: perfpin writes only a new file, or replaces one of"
            + " yours; the agent is off, the application runs without it";

    private static final String ON_PROC = "[perfpin] cannot write the stats file: /proc/self/mem is on proc, a file"
            + " system of the kernel's: perfpin writes only to regular file systems (a disk's, tmpfs); the agent is off,"
            + " the application runs without it";

    @TempDir
    Path dir;

    /** The case: stats=/dev/null once replaced /dev/null and made /dev 0700. Here /dev is a private copy. */
    @Test
    void aDeviceIsNeverReplacedNorItsDirectoryChanged() throws Exception {
        assumeTrue(isRoot() && Programs.onPath("unshare").isPresent(), "needs root and unshare -m");
        String script = "mount -t tmpfs -o mode=755 perfpin-test-dev /dev\n"
                + "mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5\n"
                + "mknod -m 666 /dev/random c 1 8; mknod -m 666 /dev/urandom c 1 9\n"
                + quoted(appCommand("stats=/dev/null")) + "\n"
                + "echo \"exit=$?\"\n"
                + "echo \"null=$(stat -c %F /dev/null) dev=$(stat -c %a /dev)\"\n";
        Output run = run(List.of("unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script));
        assertTrue(run.stdout.contains("exit=0"), run.toString());
        assertTrue(run.stdout.contains("result churn"), run.toString());
        assertTrue(run.stdout.contains("null=character special file dev=755"), run.toString());
        assertEquals(
                List.of("[perfpin] cannot write the stats file: /dev/null is a character device, " + REFUSED),
                run.perfpinLines(),
                run.toString());
    }

    @Test
    void aStickyDirectoryKeepsItsModeAndTheFileIsPrivate() throws Exception {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setAttribute(shared, "unix:mode", 01777);
        Path stats = shared.resolve("app.stats");
        Output run = run(appCommand("stats=" + stats));
        assertTrue(run.stdout.contains("result churn"), run.toString());
        assertEquals(List.of(), run.perfpinLines(), run.toString());
        assertEquals(01777, (int) Files.getAttribute(shared, "unix:mode") & 07777, "the directory keeps its mode");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(stats)));
    }

    @Test
    void aLinkNamedByOutIsNeverFollowed() throws Exception {
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Path link = Files.createSymbolicLink(dir.resolve("run.jsonl"), victim);
        Output run = run(appCommand("stats=off;out=" + link));
        assertTrue(run.stdout.contains("result churn"), run.toString());
        assertEquals(
                List.of("[perfpin] cannot write the recording: " + link + " is a symbolic link, " + REFUSED),
                run.perfpinLines(),
                run.toString());
        assertEquals("precious", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(link));
    }

    /** A file anyone may write is still another user's: neither stats= nor out= touches it. */
    @Test
    void anotherUsersFileIsNeverWritten() throws Exception {
        assumeTrue(isRoot(), "only root can give a file to another user here");
        for (String key : List.of("stats", "out")) {
            Path theirs = Files.writeString(dir.resolve(key + "-theirs"), "theirs");
            Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rw-rw-rw-"));
            Files.setAttribute(theirs, "unix:uid", 4242, LinkOption.NOFOLLOW_LINKS);
            Output run = run(appCommand(key.equals("out") ? "stats=off;out=" + theirs : "stats=" + theirs));
            assertTrue(run.stdout.contains("result churn"), run.toString());
            assertEquals(1, run.perfpinLines().size(), run.toString());
            assertTrue(run.perfpinLines().get(0).contains(theirs + " belongs to"), run.toString());
            assertEquals("theirs", Files.readString(theirs));
        }
    }

    /** stats=/proc/self/mem once said a confusing '.mem.perfpin-...' error: now one line, and nothing tried. */
    @Test
    void aFileOnAKernelFileSystemIsRefusedInOneLine() throws Exception {
        Output run = run(appCommand("stats=/proc/self/mem"));
        assertTrue(run.stdout.contains("result churn"), run.toString());
        assertEquals(List.of(ON_PROC), run.perfpinLines(), run.toString());
    }

    /**
     * docs/agent-options.md#how-the-agent-starts: where the rules leave main out, the file is made on the agent's own
     * thread after main() began. One refused there is the same one line; the threads that waited for the agent run
     * uncounted, and the application as without it.
     */
    @Test
    void aFileRefusedAfterMainBeganIsTheSameOneLine() throws Exception {
        Output run = run(appCommand("threads=churn-.*;stats=/proc/self/mem"));
        assertTrue(run.stdout.contains("result churn threads=2 ran=2"), run.toString());
        assertEquals(List.of(ON_PROC), run.perfpinLines(), run.toString());
    }

    /** docs/security.md: an existing regular file of the user's own is replaced by the new recording. */
    @Test
    void aRecordingOfOursIsReplaced() throws Exception {
        Path out = Files.writeString(dir.resolve("run.jsonl"), "an older recording\n");
        Output run = run(appCommand("stats=off;out=" + out));
        assertEquals(List.of(), run.perfpinLines(), run.toString());
        assertFalse(Files.readString(out).contains("an older recording"), Files.readString(out));
        assertFalse(Recording.read(out).threads().isEmpty(), "the new recording, with its threads");
    }

    private List<String> appCommand(String agentOptions) {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(":"))
                .filter(entry -> !entry.endsWith("agent/target/classes"))
                .collect(Collectors.joining(":"));
        return List.of(
                TestJvm.ownJava(),
                "-Dperfpin.dir=" + dir.resolve("perfpin"),
                "-javaagent:" + AppJvm.AGENT_JAR.toAbsolutePath() + "=events=task-clock;" + agentOptions,
                "-cp",
                classPath,
                "io.perfpin.apps.ThreadChurner",
                "--threads",
                "2",
                "--pages",
                "1");
    }

    private static String quoted(List<String> command) {
        return command.stream()
                .map(word -> "'" + word.replace("'", "'\\''") + "'")
                .collect(Collectors.joining(" "));
    }

    private static boolean isRoot() throws IOException {
        return "0"
                .equals(Files.getAttribute(Paths.get("/proc/self"), "unix:uid").toString());
    }

    private static Output run(List<String> command) throws IOException, InterruptedException {
        try (TestJvm process = TestJvm.program(command).start()) {
            process.closeInput();
            process.exitWithin(Duration.ofSeconds(120));
            return new Output(process.output(), process.errorOutput());
        }
    }

    private record Output(String stdout, String stderr) {
        List<String> perfpinLines() {
            return stderr.lines().filter(line -> line.startsWith("[perfpin]")).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return "stdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }
}
