package io.perfpin.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A JVM that a test starts (or a program that embeds one, or none) and talks to: lines sent to its standard input,
 * its output read line by line as it comes. Every wait has a deadline, so a child that hangs or dies fails the test
 * with its command and all it printed, never hangs the build; {@link #close} ends it whatever state it is in.
 *
 * <p>Awaited lines are claimed in any order, since a child's threads answer in any order: an await takes the first
 * line not yet claimed that it wants, and lines it passed over stay there for a later await.
 */
public class TestJvm implements AutoCloseable {
    /** The longest any one wait lasts: long on a loaded machine, yet short of a test's own timeout. */
    public static final Duration DEADLINE = Duration.ofSeconds(60);

    private final List<String> command;
    private final Process process;
    private final Writer stdin;
    /** Its output, as read; empty when it is written to {@link #outputFile}. */
    private final Output stdout;
    /** The file its output goes to, or null when it is read as it comes. */
    private final Path outputFile;
    /** Null when its error stream is read as part of its output. */
    private final Output stderr;

    private final Duration closeGrace;

    /** Starts what {@code builder} describes; for helpers that add their own protocol to a child. */
    protected TestJvm(Builder builder) throws IOException {
        command = builder.command();
        ProcessBuilder start = new ProcessBuilder(command).redirectErrorStream(builder.mergeStderr);
        if (builder.directory != null) {
            start.directory(builder.directory.toFile());
        }
        start.environment().putAll(builder.environment);
        outputFile = builder.outputFile;
        if (outputFile != null) {
            start.redirectOutput(outputFile.toFile());
        }
        process = start.start();
        closeGrace = builder.closeGrace;
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        stdout = new Output(process.getInputStream(), "stdout of " + process.pid());
        stderr = builder.mergeStderr ? null : new Output(process.getErrorStream(), "stderr of " + process.pid());
    }

    /** A JVM that runs {@code mainClass}, by default from this JVM's java and class path. */
    public static Builder main(String mainClass) {
        return new Builder(mainClass, null);
    }

    public static Builder main(Class<?> mainClass) {
        return main(mainClass.getName());
    }

    /** Any other program, run as given: one that embeds a JVM, or a shell that plays a process's part. */
    public static Builder program(String... command) {
        return program(List.of(command));
    }

    public static Builder program(List<String> command) {
        return new Builder(null, List.copyOf(command));
    }

    /** The java binary of the JVM that runs the tests. */
    public static String ownJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public long pid() {
        return process.pid();
    }

    public Process process() {
        return process;
    }

    public List<String> command() {
        return command;
    }

    public void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** Closes its standard input: the children that tests run end when it closes. */
    public void closeInput() {
        try {
            stdin.close();
        } catch (IOException alreadyGone) {
            // it ended already, and its end of the pipe with it
        }
    }

    /** The first line not yet awaited that {@code line} matches whole, once it is printed. */
    public Matcher await(Pattern line) {
        return await(line, DEADLINE);
    }

    /** As {@link #await(Pattern)}, waiting no longer than {@code within}. */
    public Matcher await(Pattern line, Duration within) {
        String found = stdout.claim(l -> line.matcher(l).matches(), within, this, false);
        if (found == null) {
            throw new AssertionError(describe("no line matching '" + line + "' within " + within));
        }
        Matcher m = line.matcher(found);
        m.matches();
        return m;
    }

    /** The first line not yet awaited that starts with {@code prefix}, once it is printed. */
    public String await(String prefix) {
        String found = stdout.claim(l -> l.startsWith(prefix), DEADLINE, this, false);
        if (found == null) {
            throw new AssertionError(describe("no line '" + prefix + "...' within " + DEADLINE));
        }
        return found;
    }

    /**
     * The first line of its error stream not yet awaited that starts with {@code prefix}, once it is printed: for what
     * it says on a thread of its own, which may come after the line the test awaited on its output.
     */
    public String awaitStderr(String prefix) {
        if (stderr == null) {
            throw new IllegalStateException("its error stream is read as part of its output: await that");
        }
        String found = stderr.claim(l -> l.startsWith(prefix), DEADLINE, this, false);
        if (found == null) {
            throw new AssertionError(describe("no line '" + prefix + "...' on stderr within " + DEADLINE));
        }
        return found;
    }

    /** The TID of the thread {@code thread}, from the line "thread NAME tid TID ..." that the test apps print. */
    public int tid(String thread) {
        return Integer.parseInt(await(Pattern.compile("thread " + Pattern.quote(thread) + " tid (\\d+)( .*)?"))
                .group(1));
    }

    /**
     * Every line it printed before the line {@code marker}, once that is printed: what it says before it is ready.
     * The marker counts as awaited, so that {@link #rest} is what came after it; asked again, the same lines.
     */
    public List<String> linesBefore(String marker) {
        if (stdout.claim(marker::equals, DEADLINE, this, true) == null) {
            throw new AssertionError(describe("no line '" + marker + "' within " + DEADLINE));
        }
        List<String> lines = stdout.lines();
        return List.copyOf(lines.subList(0, lines.indexOf(marker)));
    }

    /** Every line of its output so far, read from its file where it was written to one. */
    public List<String> lines() {
        if (outputFile == null) {
            return stdout.lines();
        }
        try {
            return Files.readAllLines(outputFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of("(its output file " + outputFile + " is unreadable: " + e + ")");
        }
    }

    /** Its output so far as one text, each line ended by a newline, as a caller that reads it whole wants it. */
    public String output() {
        return text(lines());
    }

    /** Its error stream so far as one text, as {@link #output}. */
    public String errorOutput() {
        return text(stderr());
    }

    private static String text(List<String> lines) {
        return lines.stream().map(line -> line + "\n").collect(Collectors.joining());
    }

    /** Every line of its error stream so far; none when that is read as part of its output. */
    public List<String> stderr() {
        return stderr == null ? List.of() : stderr.lines();
    }

    /** The lines it printed after the last one awaited, up to the end of its output: call once it is ending. */
    public List<String> rest() {
        if (!stdout.awaitEnd(DEADLINE, this)) {
            throw new AssertionError(describe("its output did not end within " + DEADLINE));
        }
        return stdout.afterLastClaimed();
    }

    /** Its exit status (128 + n for death by signal n), once it and its output have ended within {@code within}. */
    public int exitWithin(Duration within) throws InterruptedException {
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(describe("it still runs after " + within));
        }
        // Its output ends with it, save where a process it forked holds the pipe on: that is waited for a while only.
        stdout.awaitEnd(Duration.ofSeconds(10), this);
        if (stderr != null) {
            stderr.awaitEnd(Duration.ofSeconds(10), this);
        }
        return process.exitValue();
    }

    /** Its exit status, once it has ended by itself. */
    public int awaitExit() throws InterruptedException {
        return exitWithin(DEADLINE);
    }

    /** Closes its input, which ends it, and returns its exit status. */
    public int end() throws InterruptedException {
        closeInput();
        return exitWithin(DEADLINE);
    }

    /** Sends it a signal as kill(1) does, by name: TERM, INT, QUIT. */
    public void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid()))
                .redirectErrorStream(true)
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new AssertionError("kill -" + name + " " + pid() + " failed");
        }
    }

    /**
     * Ends it at once, as a crash would: SIGKILL to it alone. What it started lives on, as after a real crash: the
     * pin watchdog of a killed {@code perfpin stat} must.
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(describe("it outlived SIGKILL by " + DEADLINE));
        }
    }

    /** Closes its input and waits a while for it to end by itself; kills it when it does not. */
    @Override
    public void close() {
        closeInput();
        try {
            if (!process.waitFor(closeGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                // a JVM it forked (JMH's forks) would run on without it: those go first, while they are its own
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** {@code what}, with the command and all it printed, for a failure. */
    public String describe(String what) {
        return what + "\ncommand: " + String.join(" ", command) + "\nstdout:\n" + String.join("\n", lines())
                + (stderr == null ? "" : "\nstderr:\n" + String.join("\n", stderr.lines()));
    }

    /** What to start: a main class and how to run it, or a program. */
    public static final class Builder {
        private final String mainClass;
        private final List<String> program;
        private final List<String> launcher = new ArrayList<>();
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final List<String> jvmOptions = new ArrayList<>();
        private final List<String> args = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private String java = ownJava();
        private String agent;
        private String classPath = System.getProperty("java.class.path");
        private Path directory;
        private Path outputFile;
        private boolean mergeStderr;
        private Duration closeGrace = Duration.ofSeconds(10);

        private Builder(String mainClass, List<String> program) {
            this.mainClass = mainClass;
            this.program = program;
        }

        /**
         * A command that execs the java command it is given ({@code taskset -c 1}, {@code env}, a shell that first
         * sets a limit), so that the JVM has the pid that {@link #pid} says.
         */
        public Builder launcher(String... command) {
            launcher.addAll(List.of(command));
            return this;
        }

        public Builder launcher(List<String> command) {
            launcher.addAll(command);
            return this;
        }

        public Builder java(String binary) {
            java = binary;
            return this;
        }

        public Builder property(String key, String value) {
            properties.put(key, value);
            return this;
        }

        public Builder jvmOptions(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        public Builder jvmOptions(List<String> options) {
            jvmOptions.addAll(options);
            return this;
        }

        /** {@code -javaagent:JAR=OPTIONS}; without the {@code =} when {@code options} is empty. */
        public Builder agent(Path jar, String options) {
            agent = "-javaagent:" + jar.toAbsolutePath() + (options.isEmpty() ? "" : "=" + options);
            return this;
        }

        /** The agent by its native way in, {@code -agentpath:LIBRARY[=OPTIONS]}, in place of {@link #agent}. */
        public Builder agentPath(Path library, String options) {
            agent = "-agentpath:" + library.toAbsolutePath() + (options.isEmpty() ? "" : "=" + options);
            return this;
        }

        /** Its class path: by default this JVM's. */
        public Builder classPath(String path) {
            classPath = path;
            return this;
        }

        public Builder args(String... arguments) {
            args.addAll(List.of(arguments));
            return this;
        }

        /** Its working directory: by default this process's. */
        public Builder directory(Path path) {
            directory = path;
            return this;
        }

        /** Sets {@code name} in its environment, which is otherwise this process's. */
        public Builder environment(String name, String value) {
            environment.put(name, value);
            return this;
        }

        public Builder environment(Map<String, String> variables) {
            environment.putAll(variables);
            return this;
        }

        /**
         * Writes its output (with its error stream, when {@link #mergeStderr}) to {@code file} rather than a pipe:
         * for much output, or for processes it forks that would hold a pipe open after it ended. {@link #lines}
         * reads the file, and {@link #await} waits for nothing there.
         */
        public Builder outputTo(Path file) {
            outputFile = file;
            return this;
        }

        /** Reads its error stream as part of its output, in the order it was written. */
        public Builder mergeStderr() {
            mergeStderr = true;
            return this;
        }

        /** How long {@link #close} waits for it to end once its input is closed: 10 seconds unless set. */
        public Builder closeGrace(Duration grace) {
            closeGrace = grace;
            return this;
        }

        public List<String> command() {
            if (program != null) {
                return program;
            }
            List<String> command = new ArrayList<>(launcher);
            command.add(java);
            properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
            command.addAll(jvmOptions);
            if (agent != null) {
                command.add(agent);
            }
            command.addAll(List.of("-cp", classPath, mainClass));
            command.addAll(args);
            return List.copyOf(command);
        }

        public TestJvm start() throws IOException {
            return new TestJvm(this);
        }

        /** Runs it to its end, its input closed, within {@link #DEADLINE}: its exit status, whatever that is. */
        public int exitStatus() throws IOException, InterruptedException {
            try (TestJvm child = start()) {
                child.closeInput();
                return child.awaitExit();
            }
        }

        /**
         * Runs it to its end and returns its output; fails unless it exits with 0. Its error stream, where a JVM
         * warns of what it was asked to do (restricted methods on JDK 24 and later), is only for the failure.
         */
        public List<String> run() throws IOException, InterruptedException {
            return run(DEADLINE);
        }

        /** As {@link #run()}, for one that may take longer than {@link #DEADLINE} (a compiler on a busy machine). */
        public List<String> run(Duration within) throws IOException, InterruptedException {
            try (TestJvm child = start()) {
                int status = child.exitWithin(within);
                if (status != 0) {
                    throw new AssertionError(child.describe("it exited with " + status));
                }
                return child.lines();
            }
        }
    }

    /** One of its streams, read by a thread of its own into lines that awaits claim. */
    private static final class Output {
        private final List<String> lines = new ArrayList<>();
        private final BitSet claimed = new BitSet();
        private boolean ended;

        Output(InputStream stream, String name) {
            Thread pump = new Thread(() -> pump(stream), name);
            pump.setDaemon(true);
            pump.start();
        }

        private void pump(InputStream stream) {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    synchronized (this) {
                        lines.add(line);
                        notifyAll();
                    }
                }
            } catch (IOException e) {
                // the process ended, or was killed, with its pipe
            } finally {
                synchronized (this) {
                    ended = true;
                    notifyAll();
                }
            }
        }

        /**
         * The first line that {@code wanted} accepts, claimed, among those not claimed yet or, {@code again}, among
         * all; null when none came in time.
         */
        synchronized String claim(Predicate<String> wanted, Duration within, TestJvm child, boolean again) {
            long deadline = System.nanoTime() + within.toNanos();
            int from = 0;
            while (true) {
                for (int i = from; i < lines.size(); i++) {
                    if ((again || !claimed.get(i)) && wanted.test(lines.get(i))) {
                        claimed.set(i);
                        return lines.get(i);
                    }
                }
                from = lines.size();
                if (ended || !waitUntil(deadline, child)) {
                    return null;
                }
            }
        }

        /** Whether its output ended within {@code within}. */
        synchronized boolean awaitEnd(Duration within, TestJvm child) {
            long deadline = System.nanoTime() + within.toNanos();
            while (!ended) {
                if (!waitUntil(deadline, child)) {
                    return false;
                }
            }
            return true;
        }

        /** Waits for the next line or the end; false once the deadline has passed. */
        private boolean waitUntil(long deadline, TestJvm child) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(child.describe("interrupted while waiting for its output"), e);
            }
            return true;
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }

        synchronized List<String> afterLastClaimed() {
            return List.copyOf(lines.subList(claimed.length(), lines.size()));
        }
    }
}
