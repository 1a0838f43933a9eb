package io.perfpin.agent;

import io.perfpin.agent.apps.AgentTestApp;
import io.perfpin.apps.Programs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** {@link AgentTestApp} in a child JVM, driven line by line, with or without the agent. */
final class AppJvm implements AutoCloseable {
    static final Path AGENT_JAR = Paths.get(System.getProperty("perfpin.agent.jar", "target/perfpin-agent.jar"));
    /** What HotSpot prints when a jar joins the bootstrap class path after start-up. */
    static final String CDS_WARNING =
            "Sharing is only supported for boot loader classes because bootstrap classpath has been appended";
    private static final long WAIT_SECONDS = 60;

    final Process process;
    final Path perfpinDir;
    private final Writer stdin;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
    private final List<String> stderr = Collections.synchronizedList(new ArrayList<>());
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    /** Lines read but not yet awaited: threads answer in any order. */
    private final List<String> unclaimed = new ArrayList<>();

    private AppJvm(Process process, Path perfpinDir) {
        this.process = process;
        this.perfpinDir = perfpinDir;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        pump(process.getInputStream(), stdout::add);
        pump(process.getErrorStream(), stderr::add);
    }

    /**
     * @param java          the java binary
     * @param agentOptions  null for no agent
     * @param jvmOptions    more options for the JVM
     */
    static AppJvm start(String java, String agentOptions, Path perfpinDir, String... jvmOptions) throws IOException {
        return launch(List.of(), java, agentOptions, perfpinDir, jvmOptions);
    }

    /**
     * As {@link #start}, in a process whose RLIMIT_NOFILE is {@code openFiles}, soft and hard: the JVM raises its
     * soft limit to the hard one, so both are set, as {@code ulimit -n} does.
     */
    static AppJvm withOpenFileLimit(int openFiles, String java, String agentOptions, Path perfpinDir,
                                    String... jvmOptions) throws IOException {
        return launch(List.of("sh", "-c", "ulimit -n " + openFiles + " && exec \"$@\"", "sh"), java, agentOptions,
                perfpinDir, jvmOptions);
    }

    /**
     * As {@link #start}, in a process whose RLIMIT_FSIZE is {@code bytes}, soft and hard: a write that would make a
     * file larger fails (EFBIG, File too large), as on a disk that filled up.
     */
    static AppJvm withFileSizeLimit(long bytes, String java, String agentOptions, Path perfpinDir,
                                    String... jvmOptions) throws IOException {
        return launch(List.of("prlimit", "--fsize=" + bytes, "--"), java, agentOptions, perfpinDir, jvmOptions);
    }

    private static AppJvm launch(List<String> launcher, String java, String agentOptions, Path perfpinDir,
                                 String... jvmOptions) throws IOException {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(java, "-Dperfpin.dir=" + perfpinDir));
        command.addAll(List.of(jvmOptions));
        if (agentOptions != null) {
            command.add("-javaagent:" + AGENT_JAR.toAbsolutePath() + (agentOptions.isEmpty() ? "" : "=" + agentOptions));
        }
        // Without it JDK 24+ warns when the agent loads a native library; every JDK from 17 on takes the option, so
        // it is given whatever the java, which need not say its version in its path.
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(List.of("-cp", classPath(), AgentTestApp.class.getName()));
        return new AppJvm(new ProcessBuilder(command).start(), perfpinDir);
    }

    /** The java binaries the agent is tested on: this JDK, and JDK 25 where the build was given it. */
    static Stream<String> javas() {
        String own = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        return Stream.concat(Stream.of(own), Programs.secondJava().stream());
    }

    long pid() {
        return process.pid();
    }

    void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** Waits for a stdout line starting with {@code prefix}, in any order with other lines, and returns it. */
    String await(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            synchronized (unclaimed) {
                for (int i = 0; i < unclaimed.size(); i++) {
                    if (unclaimed.get(i).startsWith(prefix)) {
                        return unclaimed.remove(i);
                    }
                }
            }
            String line = stdout.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
                unclaimed.add(line);
            } else if (!process.isAlive() && stdout.isEmpty()) {
                break;
            }
        }
        throw new AssertionError("no line '" + prefix + "...' from the app; stdout " + seen + ", stderr " + stderr);
    }

    /** The TID a "touched NAME TID" line announced. */
    int touched(String name) throws InterruptedException {
        String[] words = await("touched " + name + " ").split(" ");
        return Integer.parseInt(words[2]);
    }

    /** Sends finish and returns the exit code. */
    int finish() throws IOException, InterruptedException {
        send("finish");
        await("done");
        if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("the app did not exit");
        }
        return process.exitValue();
    }

    List<String> stderr() {
        return List.copyOf(stderr);
    }

    List<String> stdoutSeen() {
        return List.copyOf(seen);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }

    private static void pump(java.io.InputStream stream, java.util.function.Consumer<String> sink) {
        Thread pump = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "app-output");
        pump.setDaemon(true);
        pump.start();
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
