package io.perfpin.cli;

import io.perfpin.StopSignal;
import io.perfpin.files.FileErrors;
import io.perfpin.files.NamedFile;
import io.perfpin.files.OutputFile;
import io.perfpin.jvm.AgentJar;
import io.perfpin.jvm.AgentLoader;
import io.perfpin.jvm.AgentPresence;
import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.JavaProcess;
import io.perfpin.registry.RegistryConfig;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadReport;
import io.perfpin.stats.OptionsText;
import io.perfpin.stats.StatsClosing;
import io.perfpin.stats.StatsFileBeingCreatedException;
import io.perfpin.stats.StatsFileReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The perfpin agent in a JVM, as the commands share it: attaching it, waiting until a loaded agent publishes,
 * watching its stats file live, detaching it. The commands parse their options and render; how the agent is reached,
 * and what each failure on the way is, is said here once. An instance is one attach, from its checks to its end: an
 * attach that fails once it loaded the agent detaches it ({@link AttachUndoneException}), leaving the JVM as it was
 * found.
 */
final class AgentSession {
    /** How long the JVM's attach channel may take to answer. */
    static final Duration ATTACH_TIMEOUT = Duration.ofSeconds(20);
    /** The agent creates its stats file shortly after it starts; this long is a JVM that did not start it. */
    private static final Duration FIRST_SAMPLE_TIMEOUT = Duration.ofSeconds(10);
    /**
     * How long a view waits for the stats file of a JVM that loaded a Java agent: the agent makes it {@link
     * RegistryConfig#DEFERRED_DELAY} after it starts, later on a loaded machine.
     */
    private static final Duration STATS_FILE_GRACE = Duration.ofSeconds(2);

    /** The live view an attach runs once the agent publishes, until it ends. */
    @FunctionalInterface
    interface View {
        LiveView watch() throws Exception;
    }

    private final JavaProcess jvm;
    private final String options;
    /** Whether an agent ran before this attach, by its own word. */
    private final boolean found;
    /** Whether --restart detached an agent that ran with other options, for this attach to load its own. */
    private final boolean restarted;

    private AgentSession(JavaProcess jvm, String options, boolean found, boolean restarted) {
        this.jvm = jvm;
        this.options = options;
        this.found = found;
        this.restarted = restarted;
    }

    /**
     * The attach of the agent, with {@code agent}'s options, to the JVM {@code pid}, checked: an agent that runs there
     * with other options is detached when {@code restart} (its threads' final records are written), else refused.
     * What would only fail inside the JVM fails here, before anything is detached or loaded, as does a column of
     * {@code view}'s that the agent's events would not give.
     */
    static AgentSession attaching(long pid, AgentSettings agent, ViewOptions view, boolean restart) throws Exception {
        String options = agent.agentOptions();
        checkRecord(agent);
        JavaProcess jvm = JavaProcess.of(pid);
        // The agent's own word, through the attach channel: a stats file may be missing or damaged while it runs.
        boolean found = AgentPresence.runs(pid, ATTACH_TIMEOUT);
        // What it runs with, as its stats file says, where that decides: an agent just started has not made it yet.
        boolean compares = found && agent.asksAnything();
        OptionsText running =
                compares ? AgentState.ofRunning(pid, STATS_FILE_GRACE).options() : null;
        boolean restarted = compares && !(running != null && agent.runsAsAsked(running));
        if (restarted && !restart) {
            throw new IllegalStateException("the agent already runs in " + pid + " with other options ("
                    + (running != null ? "'" + running.shown() + "'" : "its stats file does not say which")
                    + "): add --restart to detach it (writing its final records) and attach with these,"
                    + " or perfpin detach " + pid + " first");
        }
        if (restarted) {
            refuseSameRecording(pid, running, agent);
        }
        AgentSession session = new AgentSession(jvm, options, found, restarted);
        if (session.loads()) {
            agent.checkFor(pid);
            view.checkColumns(agent.events.events);
        }
        if (restarted) {
            detach(jvm);
        }
        return session;
    }

    /**
     * Refuses a --restart whose --record names the file the running agent records to: the detach writes that agent's
     * final records there, and the new agent would replace them, so the first recording would be lost unsaid.
     */
    private static void refuseSameRecording(long pid, OptionsText running, AgentSettings agent) {
        if (running != null && agent.recordsWhere(running, workingDirectory(pid))) {
            throw new IllegalStateException("the agent in " + pid + " records to " + agent.record
                    + ", which --restart would replace with this attach's recording: give another --record");
        }
    }

    /** The JVM's working directory as its /proc link says, only to resolve a relative path of its options. */
    private static Path workingDirectory(long pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd"));
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** Whether this attach loads the agent: none ran, or --restart detached one that ran with other options. */
    private boolean loads() {
        return !found || restarted;
    }

    /** Whether the agent already runs as asked: this attach only watches it. */
    boolean watchesOnly() {
        return !loads();
    }

    /**
     * Loads the agent where this attach does, waits until it publishes, then runs the live {@code view} until it
     * ends; what the agent could not do, and threads none of which it counts, fail it. A failure detaches an agent
     * this attach loaded, or any when {@code detachOnExit}, as does the end when {@code detachOnExit}, said to
     * {@code people} then.
     */
    void attach(boolean detachOnExit, PrintStream people, View view) throws Exception {
        long pid = jvm.pid();
        try {
            if (loads()) {
                AgentLoader.load(pid, AgentJar.forThisUser(), options, ATTACH_TIMEOUT);
                if (!AgentPresence.runs(pid, ATTACH_TIMEOUT)) {
                    throw new AgentNotStartedException(pid, "it says no agent runs");
                }
                awaitAgent(pid, null);
            }
            LiveView live = view.watch();
            if (live.noneCounted() != null) {
                throw new IllegalStateException("none of the selected threads could be counted; " + live.noneCounted());
            }
            if (live.refusals() > 0) {
                throw new IllegalStateException("the agent could not do " + live.refusals() + " thing"
                        + (live.refusals() == 1 ? "" : "s") + " these options ask: see 'agent refused' above");
            }
        } catch (Exception e) {
            if (loads() || detachOnExit) {
                throw AttachUndoneException.detaching(jvm, e, loads(), restarted);
            }
            throw e;
        }
        if (detachOnExit) {
            detach(jvm);
            people.println("perfpin: detached from " + jvm.pid());
        }
    }

    /**
     * Launches {@code launch} with the agent, as {@code agent} asks, watches it live as {@code top} does, then sums
     * up each thread's totals and hints and its {@code @Counted} methods to {@code output} when it exits; returns its
     * exit code. With CSV or JSON on standard output, the application's standard output goes to standard error,
     * so that the data stays parseable. The agent always records (to {@code --record FILE}, else a private file in
     * the perfpin directory), so nothing is lost; a live view or a summary that fails is said in one line, and the
     * exit code is still the application's.
     */
    static int launch(LaunchCommand launch, AgentSettings agent, ViewOptions view, OutputOptions output)
            throws Exception {
        boolean ownRecording = agent.record == null;
        if (ownRecording) {
            agent.record = RunsDirectory.next();
        }
        // Opened before the application starts: an --output FILE that cannot be written costs no run.
        try (ReportOutput out = output.open(List.of(agent.record))) {
            checkRecord(agent);
            String agentOption = AgentJar.startOption(agent.agentOptions(), launch.afterJava());
            RunRecordings recordings = new RunRecordings(agent.record, agent.threads, view);
            List<String> command = launch.withJvmOption(agentOption);
            if (out.parseableOnStandardOutput()) {
                // The application's standard output joins perfpin's standard error, as 1>&2 makes it: the shell
                // execs the command, so the JVM keeps the pid, and its output outlives perfpin, as inherited. A
                // program the shell could not run would be its exit 127, taken for a JVM that refused the agent:
                // refused here instead, as the start of the program itself is without the shell.
                requireRunnable(command.get(0));
                command = Stream.concat(Stream.of("/bin/sh", "-c", "exec \"$@\" 1>&2", "sh"), command.stream())
                        .toList();
            }
            if (ownRecording) {
                RunsDirectory.makeRoom(); // once nothing above refused the run: a run refused removes nothing
            }
            Process process = new ProcessBuilder(command).inheritIO().start();
            long jvm = awaitAgent(process.pid(), process);
            boolean watched = false;
            if (jvm > 0) {
                try (ChildJvms children = new ChildJvms(process.toHandle(), jvm, agent.threads)) {
                    watch("run", jvm, null, agent.threads, agent.interval.interval, null, view, out, children);
                    watched = true;
                } catch (Exception e) {
                    // The application goes on without a live view, and its exit code is still what run returns.
                    System.err.println(TerminalText.escape("perfpin run: no live view: " + e.getMessage()));
                }
            }
            // From here a signal's exit does not wait: the application may run on long after a SIGTERM sent to
            // perfpin alone.
            StopSignal.releaseHeld();
            int exit = process.waitFor();
            if (!recordings.made()) {
                String nothing =
                        "nothing was recorded in " + agent.record + ", and the application exited with " + exit;
                if (jvm < 0) {
                    // The JVM turned the agent down (an option it cannot have): its [perfpin] line said why.
                    throw new AgentNotStartedException(process.pid(), nothing);
                }
                System.err.println(TerminalText.escape(
                        "perfpin run: " + nothing + "; the JVM's stderr has a [perfpin] line that says why"));
                return exit;
            }
            try {
                recordings.summarise(watched, out);
            } catch (IOException | RuntimeException e) {
                // What could not be summarised is still recorded; the exit code is the application's all the same.
                System.err.println(
                        TerminalText.escape("perfpin run: cannot summarise " + agent.record + ": " + e.getMessage()));
            }
            return exit;
        }
    }

    /**
     * Waits until the agent publishes in the JVM: {@code pid}, or, when {@code process} (which we started) forks
     * java rather than becoming it (time, sudo), one of its descendants. Returns the JVM's pid, or -1 when
     * {@code process} ended first.
     */
    static long awaitAgent(long pid, Process process) throws InterruptedException {
        long deadline = System.nanoTime() + FIRST_SAMPLE_TIMEOUT.toNanos();
        while (true) {
            Stream<Long> candidates = Stream.of(pid);
            if (process != null) {
                candidates = Stream.concat(candidates, process.descendants().map(ProcessHandle::pid));
            }
            Optional<Long> jvm =
                    candidates.filter(p -> AgentState.of(p).active()).findFirst();
            if (jvm.isPresent()) {
                return jvm.get();
            }
            if (process != null && !process.isAlive()) {
                return -1;
            }
            if (System.nanoTime() > deadline) {
                Path stats = AgentStatsFile.of(pid);
                throw new AgentNotStartedException(
                        pid,
                        AgentStatsFile.exists(pid)
                                ? "its stats file " + stats + " shows no sampler"
                                : "no stats file appeared at " + stats);
            }
            Thread.sleep(20);
        }
    }

    /**
     * The live view of the JVM {@code pid} (or of the stats file {@code stats}), said as {@code command}'s, until it
     * ends, written to {@code out}, which stays open for what the command writes after it, with {@code children} (for
     * run: the JVMs the watched one starts; else null) below it; returns it ended.
     */
    static LiveView watch(
            String command,
            Long pid,
            Path stats,
            ThreadsOption threads,
            Duration every,
            Duration duration,
            ViewOptions view,
            ReportOutput out,
            ChildJvms children)
            throws Exception {
        Path file = stats != null ? stats : AgentStatsFile.of(pid);
        StatsFileReader opened;
        try {
            // A file the user named is opened as every such file is, and refused in one line naming what is wrong
            // on the way to it; a JVM's own, as its user in its own namespace.
            opened = stats != null ? StatsFileReader.openNamed(stats) : AgentStatsFile.open(pid);
        } catch (NamedFile.Refused e) {
            if (e.getCause() instanceof NoSuchFileException) {
                throw NoAgentException.noStatsFile(e);
            }
            throw new IllegalStateException(e.getMessage());
        } catch (NoSuchFileException | StatsFileBeingCreatedException e) {
            if (stats != null) {
                throw e instanceof NoSuchFileException
                        ? new NoAgentException(pid, file)
                        : FileErrors.unreadableStatsFile(file, e);
            }
            JavaProcess.of(pid); // no such process, another user's, or no JVM: each has its own exit code
            opened = awaitStatsFile(pid, file, e);
        } catch (IOException e) {
            if (pid != null) {
                JavaProcess.of(pid); // another user's JVM, most often: exit 5, as for every command on a pid
            }
            throw FileErrors.unreadableStatsFile(file, e);
        }
        // A file damaged when it is opened, or while it is watched, ends the view with one line.
        try (StatsFileReader reader = opened) {
            StatsClosing closing = reader.snapshot().closing();
            if (command.equals("top") && closing != StatsClosing.OPEN) {
                // Its totals are the last agent's, not a live one's: top was given a JVM where no agent runs.
                // run and attach started the agent they watch, and show how it ended. The whole snapshot is
                // read, so that a damaged file is said as damaged, not as closed.
                refuseClosed(pid, reader.pid(), file, closing);
            }
            List<String> columns = new ArrayList<>(reader.snapshot().eventNames());
            ThreadReport.metricNames(columns).stream()
                    .filter(metric -> !columns.contains(metric))
                    .forEach(columns::add);
            view.checkColumns(columns, stats != null ? stats.toString() : "the agent in JVM " + reader.pid());
            LiveView live =
                    new LiveView(command, pid != null ? pid : reader.pid(), reader, threads, view, out, children);
            live.watch(every, duration);
            return live;
        } catch (AttachException e) {
            throw e; // the process checked for a closed file: its own exit code, not a stats file's failure
        } catch (NamedFile.Refused e) {
            throw new IllegalStateException(e.getMessage());
        } catch (IOException e) {
            throw FileErrors.unreadableStatsFile(file, e);
        }
    }

    /**
     * The stats file of JVM {@code pid} that was not there, or not yet whole ({@code first}): an agent makes it
     * {@link RegistryConfig#DEFERRED_DELAY} after it starts, so a view started with the JVM waits for it, as long as
     * {@link #STATS_FILE_GRACE}, where the JVM loaded a Java agent and goes on. Elsewhere, or past that, what the
     * last try met says: no agent, or a file that cannot be read.
     */
    private static StatsFileReader awaitStatsFile(long pid, Path file, IOException first) throws Exception {
        IOException last = first;
        if (AgentPresence.loadedAJavaAgent(pid)) {
            try {
                return AgentStatsFile.openOnceMade(pid, STATS_FILE_GRACE);
            } catch (NoSuchFileException | StatsFileBeingCreatedException notYet) {
                last = notYet;
            } catch (IOException unreadable) {
                throw FileErrors.unreadableStatsFile(file, unreadable);
            }
            JavaProcess.of(pid); // gone meanwhile: its own exit code
        }
        if (last instanceof NoSuchFileException) {
            throw new NoAgentException(pid, file);
        }
        throw FileErrors.unreadableStatsFile(file, last);
    }

    /**
     * A closed stats file: the process is checked as for a missing one when the user named a pid (gone, another
     * user's or no JVM each have their own exit code); otherwise no agent runs there any more.
     */
    private static void refuseClosed(Long pid, long filePid, Path file, StatsClosing closing)
            throws AttachException, NoAgentException {
        if (pid != null) {
            JavaProcess.of(pid);
        }
        throw new NoAgentException(
                filePid,
                "its stats file " + file + " is closed: "
                        + LiveEnding.of(closing).message(filePid));
    }

    /**
     * Detaches the agent from the JVM {@code pid}, where the agent says through the JVM's attach channel that it
     * runs; its stats file, which may never have been made, or be gone or damaged, is only quoted.
     *
     * @throws NoAgentException where no agent runs, or the last one stopped with a word of its own
     */
    static void detachFrom(long pid) throws Exception {
        JavaProcess jvm = JavaProcess.of(pid);
        Optional<String> agent = AgentPresence.settled(pid, ATTACH_TIMEOUT);
        if (agent.isEmpty()) {
            throw new NoAgentException(pid, statsFileSays(pid), !AgentPresence.attachDisabled(pid));
        }
        if (agent.get().equals(AgentPresence.STARTING)) {
            throw AgentPresence.stillStarting(pid);
        }
        if (!agent.get().equals(AgentPresence.RUNNING)) {
            throw new NoAgentException(pid, "the last one stopped, but " + agent.get());
        }
        detach(jvm);
    }

    /** What the stats file adds where the agent says none runs: only a file that claims otherwise is worth a word. */
    private static String statsFileSays(long pid) {
        AgentState file = AgentState.of(pid);
        return file.active() ? "although its stats file " + AgentStatsFile.of(pid) + " looks active" : "";
    }

    /**
     * Detaches the agent that runs in {@code jvm}. agentmain returns once the agent has closed everything, so what
     * the agent says of itself afterwards is the outcome.
     *
     * @throws IllegalStateException when the agent took the request but did not stop, or stopped with a failure
     */
    static void detach(JavaProcess jvm) throws Exception {
        long pid = jvm.pid();
        AgentLoader.load(pid, AgentJar.forThisUser(), "detach", ATTACH_TIMEOUT);
        Optional<String> after = AgentPresence.of(pid, ATTACH_TIMEOUT);
        if (after.isPresent()) {
            throw new IllegalStateException("process " + pid + " took the detach request, but its agent "
                    + (after.get().equals(AgentPresence.RUNNING) ? "still runs" : "says " + after.get())
                    + "; its stderr says why");
        }
    }

    /**
     * Checks, not makes, the file {@code --record} names, before the agent is loaded or the JVM started: the agent
     * replaces the file once it records, so a command that fails before (a bad option, a java that is not there)
     * leaves an earlier recording there as it was, and one the agent could not write loads no agent.
     */
    private static void checkRecord(AgentSettings agent) throws IOException {
        if (agent.record != null) {
            try {
                OutputFile.check(agent.record);
            } catch (IOException e) {
                throw new IOException("--record: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Refuses a program that cannot be run, as {@link ProcessBuilder#start} would: a path that is no executable
     * file, or a name that no directory of the {@code PATH} has as one.
     */
    private static void requireRunnable(String program) throws IOException {
        Stream<Path> candidates = program.contains("/")
                ? Stream.of(Path.of(program))
                : Stream.of(System.getenv().getOrDefault("PATH", "").split(":", -1))
                        .map(directory -> Path.of(directory.isEmpty() ? "." : directory, program));
        if (candidates.noneMatch(file -> Files.isRegularFile(file) && Files.isExecutable(file))) {
            throw new IOException("Cannot run program \"" + program + "\": no executable file"
                    + (program.contains("/") ? " there" : " of that name on the PATH"));
        }
    }
}
