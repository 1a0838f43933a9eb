package io.perfpin.cli;

import io.perfpin.jvm.AgentJar;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM started from this test's classpath, talked to through its standard streams: it runs while its
 * standard input is open, and its output (error included) is read line by line.
 */
final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final List<String> seen = new ArrayList<>();

    private ChildJvm(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static ChildJvm start(String mainClass, String... args) throws IOException {
        return startWith(List.of(), mainClass, args);
    }

    /** A JVM started with the agent that the CLI carries, with these agent options. */
    static ChildJvm withAgent(String agentOptions, String mainClass, String... args) throws IOException {
        return startWith(List.of("-javaagent:" + AgentJar.forThisUser() + "=" + agentOptions), mainClass, args);
    }

    /** As {@link #start}, with these options for the JVM. */
    static ChildJvm startWith(List<String> jvmOptions, String mainClass, String... args) throws IOException {
        return startUnder(List.of(), jvmOptions, mainClass, args);
    }

    /**
     * As {@link #startWith}, started by {@code launcher}, a command that execs the java command it is given
     * ({@code taskset -c 1}, a shell that first moves itself into a cgroup), so that the JVM has its pid.
     */
    static ChildJvm startUnder(List<String> launcher, List<String> jvmOptions, String mainClass, String... args)
            throws IOException {
        return startUnder(launcher, ApplicationClassPath.withoutAgent(System.getProperty("java.class.path")),
                jvmOptions, mainClass, args);
    }

    /** As {@link #startUnder(List, List, String, String...)}, from {@code classPath}. */
    static ChildJvm startUnder(List<String> launcher, String classPath, List<String> jvmOptions, String mainClass,
                               String... args) throws IOException {
        List<String> command = new ArrayList<>(launcher);
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, mainClass));
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** A program that embeds a JVM (or none), talked to in the same way. */
    static ChildJvm startCommand(List<String> command) throws IOException {
        return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** Ends it (its input closed) and returns all it printed after what was awaited. */
    List<String> endAndReadRest() throws IOException, InterruptedException {
        close();
        return rest();
    }

    long pid() {
        return process.pid();
    }

    /** Reads lines up to the first that matches {@code line} whole; fails when the output ends first. */
    Matcher await(Pattern line) throws IOException {
        for (String next = out.readLine(); next != null; next = out.readLine()) {
            seen.add(next);
            Matcher m = line.matcher(next);
            if (m.matches()) {
                return m;
            }
        }
        throw new AssertionError("the child ended before printing " + line + "; it printed:\n"
                + String.join("\n", seen));
    }

    void send(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Sends it a signal as kill(1) does, by name: TERM, INT. */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + name + " " + pid() + " failed");
        }
    }

    /** Its exit code, once it has ended within {@code deadline}; fails when it runs on. */
    int exitWithin(Duration deadline) throws InterruptedException {
        if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the child still runs after " + deadline);
        }
        return process.exitValue();
    }

    /** The lines it printed after those already awaited, up to its end: call once it has ended. */
    List<String> rest() throws IOException {
        List<String> rest = new ArrayList<>();
        for (String next = out.readLine(); next != null; next = out.readLine()) {
            rest.add(next);
        }
        return rest;
    }

    /** Reads the rest of its output, up to its end, and waits for its exit code. */
    int awaitExit() throws IOException, InterruptedException {
        for (String next = out.readLine(); next != null; next = out.readLine()) {
            seen.add(next);
        }
        return process.waitFor();
    }

    /** Every line it printed so far. */
    List<String> lines() {
        return List.copyOf(seen);
    }

    /** Ends it at once, as a crash would: SIGKILL. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** Closes its input, which ends it, and waits for it; kills it when it does not end. */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException alreadyGone) {
            // it ended already
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            kill();
        }
    }
}
