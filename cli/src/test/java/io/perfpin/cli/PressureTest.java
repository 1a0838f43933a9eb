package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's case: perfpin attaches to a JVM whose writes fail, pins and counts its 60 parked threads,
 * records them and exports them to Prometheus, and however the attach ends, the JVM is left as perfpin found it: no
 * perf_event descriptor, every thread on its CPUs, nothing on its output but [perfpin] lines; a detach that follows is
 * answered.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PressureTest {
    private static final String PARKED = "60";

    /** A JVM whose files may not grow past 200,000 bytes (RLIMIT_FSIZE), as on a full disk. */
    @Test
    void aJvmUnderAFileSizeLimitIsLeftAsFound(@TempDir Path dir) throws Exception {
        attachAndDetach(
                List.of("prlimit", "--fsize=200000", "--"),
                List.of(),
                dir.resolve("recording.jsonl").toString());
    }

    /**
     * A JVM whose perfpin directory (its stats file, and the recording beside it) is a tmpfs of 64 KiB, mounted in a
     * mount namespace of its own: the machine's /tmp, where the build and its class path may lie, stays as it is.
     */
    @Test
    void aJvmOnAFullTmpfsIsLeftAsFound() throws Exception {
        Path full = Files.createTempDirectory(Path.of("/var/tmp"), "perfpin-full");
        try {
            List<String> launcher = List.of(
                    "unshare",
                    "-m",
                    "--propagation",
                    "private",
                    "sh",
                    "-c",
                    "mount -t tmpfs -o size=64k,mode=0700 tmpfs " + full + " && exec \"$@\"",
                    "sh");
            attachAndDetach(
                    launcher,
                    List.of("-Dperfpin.dir=" + full),
                    full.resolve("recording.jsonl").toString());
        } finally {
            Files.delete(full);
        }
    }

    private static void attachAndDetach(List<String> launcher, List<String> jvmOptions, String recording)
            throws Exception {
        List<String> options = new ArrayList<>(jvmOptions);
        options.add("-Xss256k");
        try (ChildJvm service = ChildJvm.startUnder(launcher, options, "io.perfpin.apps.Service", "0", "300", PARKED)) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());
            String cpus = ProcFiles.cpusAllowed(service.pid(), (int) service.pid());
            int port;
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = free.getLocalPort();
            }
            CliRun attach = CliRun.capture(() -> Perfpin.run(
                    "attach",
                    pid,
                    "--threads",
                    "parked-.*",
                    "--pin",
                    "parked-.*@1",
                    "--record",
                    recording,
                    "--prometheus",
                    "127.0.0.1:" + port,
                    "--interval",
                    "50ms",
                    "--duration",
                    "3s"));
            // Which write fails first (the stats file's creation, a page of it the reader faults on, the recording)
            // depends on the machine; the attach ends either way, and takes back the agent it loaded.
            assertTrue(attach.code == ExitCode.ATTACH_FAILED || attach.code == ExitCode.FAILURE, attach.err);
            assertTrue(
                    attach.err.endsWith("; the agent that perfpin loaded is detached, leaving process " + pid
                                    + " as perfpin found it\n")
                            || attach.err.startsWith("perfpin attach: cannot hand the agent jar"),
                    attach.err);
            assertEquals(1, attach.err.lines().count(), attach.err);
            CliRun detach = CliRun.capture(() -> Perfpin.run("detach", pid));
            assertEquals(ExitCode.NO_AGENT, detach.code, detach.out + detach.err);
            DetachCommandTest.assertNothingOfPerfpinsIn(service.pid(), cpus);
            try (Socket scrape = new Socket()) {
                assertThrows(
                        ConnectException.class,
                        () -> scrape.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 3000),
                        "the agent's listener is gone with it");
            }
            DetachCommandTest.assertOnlyPerfpinLines(service.endAndReadRest());
        }
    }
}
