package io.perfpin.cli;

import io.perfpin.jvm.AgentPresence;
import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.jvm.JavaProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Stops the agent in a JVM: final records written, counters closed, woven code taken back, pins undone. Whether an
 * agent runs there, and whether it stopped, the agent says itself through the JVM's attach channel
 * ({@link AgentPresence}); its stats file, which may never have been made, or be gone or damaged, is only quoted.
 */
@Command(name = "detach", mixinStandardHelpOptions = true,
        description = "Stop the perfpin agent in a JVM: its threads get their affinity back, every counter is"
                + " closed, and the woven code is taken back.")
final class DetachCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PID", description = "The JVM to detach from.")
    long pid;

    @Override
    public Integer call() throws Exception {
        JavaProcess jvm = JavaProcess.of(pid);
        Optional<String> agent = AgentPresence.of(pid, AgentSession.ATTACH_TIMEOUT);
        if (agent.isEmpty()) {
            throw new NoAgentException(pid, statsFileSays(pid));
        }
        if (!agent.get().equals(AgentPresence.RUNNING)) {
            throw new NoAgentException(pid, "the last one stopped, but " + agent.get());
        }
        AgentSession.detach(jvm);
        System.out.println("perfpin: detached from " + pid);
        return ExitCode.OK;
    }

    /** What the stats file adds where the agent says none runs: only a file that claims otherwise is worth a word. */
    private static String statsFileSays(long pid) {
        AgentState file = AgentState.of(pid);
        return file.active() ? "although its stats file " + AgentStatsFile.of(pid) + " looks active" : "";
    }
}
