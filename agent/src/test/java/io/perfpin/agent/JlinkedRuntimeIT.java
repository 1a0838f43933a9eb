package io.perfpin.agent;

import static io.perfpin.agent.JavaagentIT.awaitLive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.jvm.AgentLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A runtime as small as a container image can make it, {@code java.base} and {@code java.instrument} alone,
 * built by the jlink of the JDK under test: attach enrols the threads that already run, mapped to their TIDs
 * through the JVM's own attach listener (no {@code jdk.management}, no {@code jdk.attach}).
 */
class JlinkedRuntimeIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    static Stream<String> javas() {
        return AppJvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void attachEnrolsTheThreadsAlreadyRunning(String java, @TempDir Path dir) throws Exception {
        Path image = dir.resolve("runtime");
        Path jlink = Paths.get(java).getParent().resolve("jlink");
        Process linking = new ProcessBuilder(
                        jlink.toString(),
                        "--add-modules",
                        "java.base,java.instrument",
                        "--strip-debug",
                        "--no-header-files",
                        "--no-man-pages",
                        "--output",
                        image.toString())
                .redirectErrorStream(true)
                .start();
        String said = new String(linking.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(linking.waitFor(120, TimeUnit.SECONDS) && linking.exitValue() == 0, "jlink: " + said);
        Process modules = new ProcessBuilder(image.resolve("bin/java").toString(), "--list-modules").start();
        List<String> listed = new String(modules.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .lines()
                .map(line -> line.split("@")[0])
                .toList();
        assertEquals(List.of("java.base", "java.instrument"), listed);

        try (AppJvm app = AppJvm.start(image.resolve("bin/java").toString(), null, dir)) {
            app.await("ready");
            app.send("start early-1 0");
            int early = app.touched("early-1");
            AgentLoader.load(
                    app.pid(), AppJvm.AGENT_JAR, "threads=early-.*;pin=early-.*@1;events=sched;interval=50ms", TIMEOUT);
            assertEquals("1", Observed.awaitCpusAllowed(app.pid(), early, "1"), "the running thread was pinned");
            awaitLive(Observed.statsFile(dir, app.pid()), early, "task-clock", 0);
            assertEquals(0, app.finish());
            assertTrue(
                    app.stderr().stream().noneMatch(line -> line.startsWith("[perfpin]")),
                    app.stderr().toString());
        }
    }
}
