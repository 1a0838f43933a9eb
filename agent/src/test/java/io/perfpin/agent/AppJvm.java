package io.perfpin.agent;

import io.perfpin.agent.apps.AgentTestApp;
import io.perfpin.apps.Programs;
import io.perfpin.jvm.AgentJar;
import io.perfpin.testkit.TestJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** {@link AgentTestApp} in the testkit's child JVM, with or without the agent, and the app's line protocol. */
final class AppJvm extends TestJvm {
    static final Path AGENT_JAR = Paths.get(System.getProperty("perfpin.agent.jar", "target/perfpin-agent.jar"));
    /** The agent's native way in, which the build puts beside the jar it starts. */
    static final Path AGENT_LIBRARY = AGENT_JAR.resolveSibling(AgentJar.LIBRARY);
    /** What HotSpot prints when a jar joins the bootstrap class path after start-up. */
    static final String CDS_WARNING =
            "Sharing is only supported for boot loader classes because bootstrap classpath has been appended";

    private AppJvm(TestJvm.Builder app) throws IOException {
        super(app);
    }

    /**
     * @param java          the java binary
     * @param agentOptions  null for no agent
     * @param jvmOptions    more options for the JVM
     */
    static AppJvm start(String java, String agentOptions, Path perfpinDir, String... jvmOptions) throws IOException {
        return launch(List.of(), java, agentOptions, perfpinDir, jvmOptions);
    }

    /** As {@link #start}, the agent started by {@code -agentpath:libperfpin-agent.so} rather than -javaagent. */
    static AppJvm startByAgentPath(String java, String agentOptions, Path perfpinDir, String... jvmOptions)
            throws IOException {
        return new AppJvm(builder(AgentTestApp.class, List.of(), java, perfpinDir, jvmOptions)
                .agentPath(AGENT_LIBRARY, agentOptions));
    }

    /**
     * As {@link #start}, in a process whose RLIMIT_NOFILE is {@code openFiles}, soft and hard: the JVM raises its
     * soft limit to the hard one, so both are set, as {@code ulimit -n} does.
     */
    static AppJvm withOpenFileLimit(
            int openFiles, String java, String agentOptions, Path perfpinDir, String... jvmOptions) throws IOException {
        return launch(
                List.of("sh", "-c", "ulimit -n " + openFiles + " && exec \"$@\"", "sh"),
                java,
                agentOptions,
                perfpinDir,
                jvmOptions);
    }

    /**
     * As {@link #start}, in a process whose RLIMIT_FSIZE is {@code bytes}, soft and hard: a write that would make a
     * file larger fails (EFBIG, File too large), as on a disk that filled up.
     */
    static AppJvm withFileSizeLimit(long bytes, String java, String agentOptions, Path perfpinDir, String... jvmOptions)
            throws IOException {
        return launch(List.of("prlimit", "--fsize=" + bytes, "--"), java, agentOptions, perfpinDir, jvmOptions);
    }

    private static AppJvm launch(
            List<String> launcher, String java, String agentOptions, Path perfpinDir, String... jvmOptions)
            throws IOException {
        return new AppJvm(app(AgentTestApp.class, launcher, java, agentOptions, perfpinDir, jvmOptions));
    }

    /**
     * As {@link #start}, running {@code mainClass} with {@code args} instead of the test app: only its output is of
     * use.
     */
    static AppJvm startMain(
            Class<?> mainClass,
            List<String> args,
            String java,
            String agentOptions,
            Path perfpinDir,
            String... jvmOptions)
            throws IOException {
        return new AppJvm(app(mainClass, List.of(), java, agentOptions, perfpinDir, jvmOptions)
                .args(args.toArray(new String[0])));
    }

    private static TestJvm.Builder app(
            Class<?> mainClass,
            List<String> launcher,
            String java,
            String agentOptions,
            Path perfpinDir,
            String... jvmOptions) {
        TestJvm.Builder app = builder(mainClass, launcher, java, perfpinDir, jvmOptions);
        if (agentOptions != null) {
            app.agent(AGENT_JAR, agentOptions);
        }
        return app;
    }

    private static TestJvm.Builder builder(
            Class<?> mainClass, List<String> launcher, String java, Path perfpinDir, String... jvmOptions) {
        // The app ends only when told to finish: close() kills one that a failed test left running, as a crash would.
        return TestJvm.main(mainClass)
                .launcher(launcher)
                .java(java)
                .property("perfpin.dir", perfpinDir.toString())
                .jvmOptions(jvmOptions)
                .classPath(classPath())
                .closeGrace(Duration.ZERO)
                // Without it JDK 24+ warns when the agent loads a native library; every JDK from 17 on takes the
                // option, so it is given whatever the java, which need not say its version in its path.
                .jvmOptions("--enable-native-access=ALL-UNNAMED");
    }

    /** The java binaries the agent is tested on: this JDK, and JDK 25 where the build was given it. */
    static Stream<String> javas() {
        return Stream.concat(Stream.of(ownJava()), Programs.secondJava().stream());
    }

    /** The TID a "touched NAME TID" line announced. */
    int touched(String name) {
        return Integer.parseInt(await("touched " + name + " ").split(" ")[2]);
    }

    /** Sends finish and returns the exit code. */
    int finish() throws IOException, InterruptedException {
        send("finish");
        await("done");
        return awaitExit();
    }

    /**
     * The test class path, which has the test app, the workloads and the annotations, less the agent's own
     * classes: the agent comes from its jar alone. The byte-buddy, JNA and jffi jars stay, as an application's
     * own copies, which the agent's must not meet.
     */
    private static String classPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(":"))
                .filter(entry -> !entry.endsWith("agent/target/classes"))
                .collect(Collectors.joining(":"));
    }
}
