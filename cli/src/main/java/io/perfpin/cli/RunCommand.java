package io.perfpin.cli;

import io.perfpin.PerfpinDirectory;
import io.perfpin.files.EffectiveUser;
import io.perfpin.files.OutputFile;
import io.perfpin.jvm.AgentJar;
import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * Launches a JVM with the agent, watches it live as {@code top} does, prints each thread's totals and hints
 * when it exits, then its {@code @Counted} methods, and exits with its exit code. The agent always records
 * (to {@code --record FILE}, else a private file in the perfpin directory), so nothing is lost.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Run a JVM with the perfpin agent: perfpin run [options] -- java -cp app.jar Main ...",
            "Shows the live view, then the summary at exit; exits with the application's exit code.",
            "java may stand behind programs that run it, with their options: taskset, numactl, env, nice, chrt,"
                    + " ionice, setpriv, sudo, stdbuf, time and nohup (perfpin run -- taskset -c 2 java ...).",
            "A command that starts java any other way (sh -c, a script, mvn, gradle) is refused (exit 2)."
                    + " Load the agent there yourself: put JAVA_TOOL_OPTIONS='-javaagent:JAR=OPTIONS' in its"
                    + " environment (the refusal names JAR and OPTIONS; every JVM that sees the variable loads"
                    + " the agent) and watch it with perfpin top PID; or start it as usual and perfpin attach"
                    + " PID."
        })
final class RunCommand implements Callable<Integer> {
    @Mixin
    AgentSettings agent;

    @Mixin
    ViewOptions view;

    @Mixin
    OutputOptions output;

    @Parameters(
            paramLabel = "COMMAND",
            arity = "1..*",
            description = "The java command and its arguments, after --; the agent goes right after java.")
    List<String> command;

    @Override
    public Integer call() throws Exception {
        LaunchCommand launch = launchCommand();
        if (agent.record == null) {
            agent.record = PerfpinDirectory.open(PerfpinDirectory.RUNS)
                    .resolve("run-" + System.currentTimeMillis() + ".jsonl");
        }
        // Checked here, where a refusal is one line before anything starts; the agent then replaces this file.
        try {
            OutputFile.create(agent.record).close();
        } catch (IOException e) {
            throw new IOException("--record: " + e.getMessage(), e);
        }
        String agentOption = "-javaagent:" + AgentJar.forThisUser() + "=" + agent.agentOptions();
        // Opened before the application starts: an --output FILE that cannot be written costs no run.
        try (ReportOutput out = output.open()) {
            Process process = new ProcessBuilder(launch.withJvmOption(agentOption))
                    .inheritIO()
                    .start();
            long jvm = AgentSession.awaitAgent(process.pid(), process);
            boolean watched = false;
            if (jvm > 0) {
                try (ChildJvms children = new ChildJvms(process.toHandle(), jvm, agent.threads)) {
                    AgentSession.watch(
                            "run", jvm, null, agent.threads, agent.interval.interval, null, view, out, children);
                    watched = true;
                } catch (Exception e) {
                    // The application goes on without a live view, and its exit code is still what run returns.
                    System.err.println(TerminalText.escape("perfpin run: no live view: " + e.getMessage()));
                }
            }
            int exit = process.waitFor();
            if (Files.exists(agent.record)) {
                try {
                    new RunRecordings(agent.record, agent.threads, view).summarise(watched, out);
                } catch (IOException | RuntimeException e) {
                    // What could not be summarised is still recorded; the exit code is the application's all the same.
                    System.err.println(TerminalText.escape(
                            "perfpin run: cannot summarise " + agent.record + ": " + e.getMessage()));
                }
            }
            return exit;
        }
    }

    /**
     * The command, once java is found in it and runs as this user: the JVM of another user could read neither
     * the agent jar nor write the recording in this user's private directory.
     */
    private LaunchCommand launchCommand() throws IOException {
        LaunchCommand launch;
        try {
            launch = LaunchCommand.of(command);
        } catch (IllegalArgumentException e) {
            String option = "-javaagent:" + AgentJar.forThisUser() + "=" + agent.agentOptions();
            throw new IllegalArgumentException(
                    e.getMessage() + "; or load the agent yourself: JAVA_TOOL_OPTIONS='" + option.replace("'", "'\\''")
                            + "', and perfpin top PID (see perfpin run --help)",
                    e);
        }
        Optional<String> other = launch.otherUser(System.getProperty("user.name"), EffectiveUser.uid());
        if (other.isPresent()) {
            throw new IllegalArgumentException("'" + LaunchCommand.shown(command) + "' runs java as " + other.get()
                    + ", whose JVM can neither read this user's agent jar nor write its recording: run perfpin"
                    + " itself as " + other.get());
        }
        return launch;
    }
}
