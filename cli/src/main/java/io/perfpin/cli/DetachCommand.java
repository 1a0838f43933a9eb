package io.perfpin.cli;

import io.perfpin.jvm.AgentPresence;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Stops the agent in a JVM: final records written, counters closed, woven code taken back, pins undone. Whether an
 * agent runs there, and whether it stopped, the agent says itself through the JVM's attach channel
 * ({@link AgentPresence}); its stats file, which may never have been made, or be gone or damaged, is only quoted.
 */
@Command(
        name = "detach",
        mixinStandardHelpOptions = true,
        description = "Stop the perfpin agent in a JVM: its threads get their affinity back, every counter is"
                + " closed, and the woven code is taken back.")
final class DetachCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PID", converter = PidParser.class, description = "The JVM to detach from.")
    long pid;

    @Override
    public Integer call() throws Exception {
        AgentSession.detachFrom(pid);
        System.out.println("perfpin: detached from " + pid);
        return ExitCode.OK;
    }
}
