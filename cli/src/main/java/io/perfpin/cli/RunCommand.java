package io.perfpin.cli;

import io.perfpin.PerfpinDirectory;
import io.perfpin.files.OutputFile;
import io.perfpin.report.Recording;
import io.perfpin.report.TerminalText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Launches a JVM with the agent, watches it live as {@code top} does, prints each thread's totals and hints
 * when it exits, then its {@code @Counted} methods, and exits with its exit code. The agent always records
 * (to {@code --record FILE}, else a private file in the perfpin directory), so nothing is lost.
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
        if (agent.record == null) {
            agent.record = PerfpinDirectory.open(PerfpinDirectory.RUNS).resolve("run-" + System.currentTimeMillis()
                    + ".jsonl");
        }
        // Checked here, where a refusal is one line before anything starts; the agent then replaces this file.
        try {
            OutputFile.create(agent.record).close();
        } catch (IOException e) {
            throw new IOException("--record: " + e.getMessage(), e);
        }
        List<String> launched = new ArrayList<>(command);
        launched.add(1, "-javaagent:" + AgentJar.forThisUser() + "=" + agent.agentOptions());
        Process process = new ProcessBuilder(launched).inheritIO().start();
        AttachCommand.awaitAgent(process.pid(), process);
        if (process.isAlive()) {
            try {
                AttachCommand.watch(process.pid(), agent.threads, agent.interval, new DurationOption());
            } catch (Exception e) {
                // The application goes on without a live view, and its exit code is still what run returns.
                System.err.println(TerminalText.escape("perfpin run: no live view: " + e.getMessage()));
            }
        }
        int exit = process.waitFor();
        if (Files.exists(agent.record)) {
            Recording recording = Recording.read(agent.record);
            ReportFormat.TABLE.renderMethods(recording.methods()).forEach(System.out::println);
            System.out.println(TerminalText.escape("Recorded in " + agent.record + " (perfpin report " + agent.record
                    + ")"));
        }
        return exit;
    }
}
