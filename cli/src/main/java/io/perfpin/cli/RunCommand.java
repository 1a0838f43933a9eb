package io.perfpin.cli;

import io.perfpin.files.EffectiveUser;
import io.perfpin.jvm.AgentJar;
import java.io.IOException;
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
        view.checkColumns(agent.events.events);
        // The JVM starts with this process's CPUs: its pins are checked against them, as attach checks its target's
        // (a wrapper such as taskset may narrow them further: the agent then says what it could not have).
        agent.checkFor(ProcessHandle.current().pid());
        return AgentSession.launch(launchCommand(), agent, view, output);
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
            String option = AgentJar.javaagentOption(agent.agentOptions());
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
