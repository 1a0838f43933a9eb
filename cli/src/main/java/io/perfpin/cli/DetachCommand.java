package io.perfpin.cli;

import io.perfpin.jvm.AgentJar;
import io.perfpin.jvm.AgentLoader;
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
        Optional<String> agent = AgentPresence.of(pid, AttachCommand.ATTACH_TIMEOUT);
        if (agent.isEmpty()) {
            throw new NoAgentException(pid, statsFileSays(pid));
        }
        if (!agent.get().equals(AgentPresence.RUNNING)) {
            throw new NoAgentException(pid, "the last one stopped, but " + agent.get());
        }
        detach(jvm);
        System.out.println("perfpin: detached from " + pid);
        return ExitCode.OK;
    }

    /**
     * Detaches the agent that runs in {@code jvm}. agentmain returns once the agent has closed everything, so what
     * the agent says of itself afterwards is the outcome.
     *
     * @throws IllegalStateException when the agent took the request but did not stop, or stopped with a failure
     */
    static void detach(JavaProcess jvm) throws Exception {
        long pid = jvm.pid();
        AgentLoader.load(pid, AgentJar.forThisUser(), "detach", AttachCommand.ATTACH_TIMEOUT);
        Optional<String> after = AgentPresence.of(pid, AttachCommand.ATTACH_TIMEOUT);
        if (after.isPresent()) {
            throw new IllegalStateException("process " + pid + " took the detach request, but its agent "
                    + (after.get().equals(AgentPresence.RUNNING) ? "still runs" : "says " + after.get())
                    + "; its stderr says why");
        }
    }

    /** What the stats file adds where the agent says none runs: only a file that claims otherwise is worth a word. */
    private static String statsFileSays(long pid) {
        AgentState file = AgentState.of(pid);
        return file.active() ? "although its stats file " + AgentStatsFile.of(pid) + " looks active" : "";
    }
}
