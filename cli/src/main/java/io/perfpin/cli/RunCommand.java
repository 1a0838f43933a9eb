package io.perfpin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Launches a JVM with the agent, watches it live as {@code top} does, prints each thread's totals and hints
 * when it exits, and exits with its exit code.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run a JVM with the perfpin agent: perfpin run [options] -- java -cp app.jar Main ...",
                "Shows the live view, then the summary at exit; exits with the application's exit code."})
final class RunCommand implements Callable<Integer> {
    @Mixin
    AgentSettings agent;

    @Parameters(paramLabel = "COMMAND", arity = "1..*",
            description = "The java command and its arguments, after --; the agent goes right after java.")
    List<String> command;

    @Override
    public Integer call() throws Exception {
        List<String> launched = new ArrayList<>(command);
        launched.add(1, "-javaagent:" + AgentJar.locate() + "=" + agent.agentOptions());
        Process process = new ProcessBuilder(launched).inheritIO().start();
        AttachCommand.awaitAgent(process.pid(), process);
        if (process.isAlive()) {
            AttachCommand.watch(process.pid(), agent.threads, agent.interval, new DurationOption());
        }
        return process.waitFor();
    }
}
